import { parentPort, workerData } from "node:worker_threads";
import { runAttack, type AttackOptions } from "./attack.ts";

// The attacker's client on a thread of its own: on the second account's thread its requests, streams and
// timers would queue in front of the second account's own, and count as the API's latency.

const options = workerData as Omit<AttackOptions, "signal">;
const stop = new AbortController();
parentPort?.once("message", () => stop.abort());
const counts = await runAttack({ ...options, signal: stop.signal });
parentPort?.postMessage(counts);
