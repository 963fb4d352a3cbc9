// The /healthz prober's thread (healthz-probe.ts): one request at a time, a pause between, each answer's time and
// when it was sent (performance.timeOrigin + now, comparable across threads).
import { setTimeout as delay } from "node:timers/promises";
import { parentPort, workerData } from "node:worker_threads";

const { url, pauseMs } = workerData as { url: string; pauseMs: number };
const samples: { at: number; ms: number }[] = [];
let stopping = false;
parentPort!.on("message", () => (stopping = true));

while (!stopping) {
  const sent = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  samples.push({ at: performance.timeOrigin + sent, ms: performance.now() - sent });
  await delay(pauseMs);
}
parentPort!.postMessage(samples);
