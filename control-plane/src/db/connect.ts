import type { Logger } from "pino";
import type { Env } from "@caption/shared/config/env";
import { EmbeddedPostgresError, startEmbeddedPostgres } from "./embedded-postgres.ts";

export interface DatabaseLocation {
  url: string;
  /** Stops the embedded cluster this process started; a no-op for DATABASE_URL or a joined cluster. */
  stop(): Promise<void>;
}

/**
 * DATABASE_URL when set, else the embedded PostgreSQL under DATA_DIR (joined if it is already running).
 * For entry points: an embedded database that cannot start for a reason the operator must fix ends
 * the process with one fatal log line naming cause and fix, not a stack trace.
 */
export async function locateDatabase(env: Pick<Env, "DATABASE_URL" | "DATA_DIR">, logger: Logger): Promise<DatabaseLocation> {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, stop: async () => {} };
  try {
    const embedded = await startEmbeddedPostgres(env.DATA_DIR, logger);
    return { url: embedded.url, stop: embedded.stop };
  } catch (error) {
    if (!(error instanceof EmbeddedPostgresError)) throw error;
    logger.fatal(`embedded PostgreSQL cannot start: ${error.message}`);
    logger.flush();
    process.exit(1);
  }
}
