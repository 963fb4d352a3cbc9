import type { Logger } from "pino";
import { DatabaseWaitTimeout } from "../db/database-retry.ts";

/**
 * Ends a process whose start-up failed with one fatal log line and exit code 1 — for a database
 * that never came, the line says so and how long it was awaited, without a stack trace.
 */
export function exitOnStartupFailure(logger: Logger): (error: unknown) => never {
  return (error) => {
    if (error instanceof DatabaseWaitTimeout) logger.fatal(error.message);
    else logger.fatal({ err: error }, "start-up failed");
    // pino flushes its pending lines when the process exits.
    process.exit(1);
  };
}
