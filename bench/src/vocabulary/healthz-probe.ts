import { Worker } from "node:worker_threads";

export interface HealthzSample {
  /** When the request was sent (ms since the epoch, comparable across threads). */
  at: number;
  ms: number;
}

/**
 * Asks `url` again and again from a thread of its own, so that a blocked event loop in this thread delays the
 * answers it measures, never the asking. stop() resolves with every answer's time.
 */
export function startHealthzProbe(url: string, pauseMs = 5): { stop(): Promise<HealthzSample[]> } {
  const worker = new Worker(new URL("./healthz-probe-thread.ts", import.meta.url), { workerData: { url, pauseMs } });
  const samples = new Promise<HealthzSample[]>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the /healthz probe exited (${code}) without its samples`)));
  });
  samples.catch(() => undefined);
  return {
    async stop() {
      worker.postMessage("stop");
      try {
        return await samples;
      } finally {
        await worker.terminate();
      }
    },
  };
}

/** Now, as the probe's `at` counts it. */
export const probeClock = (): number => performance.timeOrigin + performance.now();
