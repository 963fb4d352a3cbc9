import { parentPort, workerData } from "node:worker_threads";
import { runAttack, type AttackOptions, type Gate } from "./attack.ts";

// The attacker's client on a thread of its own: on the second account's thread its requests, streams and
// timers would queue in front of the second account's own, and count as the API's latency.
// Messages: "pause", "resume", "stop". Pausing (and stopping) also closes the upload requests held open.

const options = workerData as Omit<AttackOptions, "signal" | "gate">;
const stop = new AbortController();
let resumed: Promise<void> | null = null;
let resume = () => undefined as void;
const pauseListeners: (() => void)[] = [];
const gate: Gate = { pass: () => resumed ?? Promise.resolve(), onPause: (listener) => void pauseListeners.push(listener) };
parentPort?.on("message", (message: string) => {
  if (message === "pause" && !resumed) resumed = new Promise<void>((resolve) => (resume = resolve));
  if (message === "pause" || message === "stop") for (const listener of pauseListeners) listener();
  if (message === "resume" || message === "stop") {
    resumed = null;
    resume();
  }
  if (message === "stop") {
    stop.abort();
    parentPort?.removeAllListeners("message");
  }
});
const counts = await runAttack({ ...options, signal: stop.signal, gate });
parentPort?.postMessage(counts);
