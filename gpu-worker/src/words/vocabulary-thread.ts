// The vocabulary post-pass's thread (vocabulary-snapper.ts starts it): each request snaps one stretch of words to
// the job's terms, reporting the work spent after each word, so the worker's event loop stays free meanwhile.
import { parentPort, workerData } from "node:worker_threads";
import type { SnapRequest, SnapThreadData, SnapThreadMessage } from "./vocabulary-snapper.ts";
import { snapToTerms } from "./vocabulary-snap.ts";

const port = parentPort!;
const { terms } = workerData as SnapThreadData;
const send = (message: SnapThreadMessage) => port.postMessage(message);

port.on("message", ({ words, phones, budget }: SnapRequest) => {
  const started = process.threadCpuUsage();
  const outcome = snapToTerms(words, terms, phones, budget, (used) => send({ kind: "progress", used }));
  const cpu = process.threadCpuUsage(started);
  send({ kind: "done", ...outcome, cpuMs: (cpu.user + cpu.system) / 1000 });
});
send({ kind: "ready" });
