import type { EventEmitter } from "node:events";
import type { Logger } from "pino";

/**
 * A repeat of a signal this soon after the first is the same request delivered twice: a terminal's
 * Ctrl-C reaches the whole process group, and `npm start` also forwards it to the service it runs.
 */
export const SAME_REQUEST_MS = 1000;

export interface ShutdownSignalOptions {
  /** Milliseconds on a monotonic clock; injectable for tests. */
  now?: () => number;
  /** Where signals arrive and how the process ends; `process` unless a test says otherwise. */
  target?: Pick<EventEmitter, "on">;
  exit?: (code: number) => void;
}

/**
 * First SIGTERM/SIGINT: the graceful stop (a worker lets running jobs finish until its deadline,
 * then releases them for retry). A second signal, a moment later: the forceful one. The process then exits.
 */
export function onShutdownSignals(logger: Logger, graceful: () => Promise<void>, forceful: () => Promise<void>, options: ShutdownSignalOptions = {}): void {
  const { now = () => performance.now(), target = process, exit = (code: number) => process.exit(code) } = options;
  let first: number | undefined;
  let forced = false;
  const run = (stop: () => Promise<void>) =>
    stop().then(
      () => exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        exit(1);
      },
    );
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    target.on(signal, () => {
      const at = now();
      if (first === undefined) {
        first = at;
        logger.info({ signal, forceful: false }, "shutdown signal");
        void run(graceful);
        return;
      }
      if (forced || at - first < SAME_REQUEST_MS) return;
      forced = true;
      logger.info({ signal, forceful: true }, "shutdown signal");
      void run(forceful);
    });
  }
}
