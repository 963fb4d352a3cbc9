import type { Logger } from "pino";

/**
 * First SIGTERM/SIGINT: the graceful stop (a worker lets running jobs finish until its deadline,
 * then releases them for retry). A second signal: the forceful one. The process then exits.
 */
export function onShutdownSignals(logger: Logger, graceful: () => Promise<void>, forceful: () => Promise<void>): void {
  let received = 0;
  const exit = (code: number) => () => process.exit(code);
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      received += 1;
      logger.info({ signal, forceful: received > 1 }, "shutdown signal");
      const stop = received === 1 ? graceful : forceful;
      stop().then(exit(0), (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        exit(1)();
      });
    });
  }
}
