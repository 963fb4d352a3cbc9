import { PgBoss, type ConstructorOptions } from "pg-boss";
import type { Logger } from "pino";
import { isDatabaseUnavailable } from "../db/database-errors.ts";
import { poolConfig, type ConnectionOptions } from "../db/database.ts";
import { ensureQueues, PGBOSS_SCHEMA } from "./catalog.ts";

// pg-boss's LISTEN connection (useListenNotify) reports its loss with these; it reconnects by itself
// and polling covers the gap, so they are an outage's warnings, not errors.
const LISTENER_LOST = /^LISTEN\/NOTIFY (connection ended|heartbeat timed out|channel registration was lost)/;

/**
 * Starts pg-boss on a pool whose clients report broken connections instead of crashing the process
 * (see poolConfig), with its errors logged: during a database outage its polling and supervision
 * fail and recover on their own. A start that fails stops what it had started, so it can be retried.
 */
export async function startQueueClient(connectionString: string, bossOptions: Omit<ConstructorOptions, "schema">, connection: ConnectionOptions, logger: Logger): Promise<PgBoss> {
  const pool = poolConfig(connectionString, {
    applicationName: "pgboss",
    onConnectionLost: (error) => logger.warn({ err: error }, "queue database connection lost"),
    ...connection,
  });
  // pg-boss hands these options to pg.Pool; its types do not list pg.Pool's own (Client, keepAlive).
  const boss = new PgBoss({ ...pool, ...bossOptions, schema: PGBOSS_SCHEMA } as ConstructorOptions);
  boss.on("error", (error) => {
    if (isDatabaseUnavailable(error) || LISTENER_LOST.test((error as Error).message)) logger.warn({ cause: (error as Error).message }, "queue: database unavailable");
    else logger.error({ err: error }, "pg-boss error");
  });
  // Such as listen_notify_unavailable (behind PgBouncer in transaction mode): it polls instead.
  boss.on("warning", (warning) => logger.warn({ pgboss: warning.data }, `queue: ${warning.message}`));
  try {
    await boss.start();
    await ensureQueues(boss);
    return boss;
  } catch (error) {
    await boss.stop({ graceful: false, close: true }).catch(() => undefined);
    throw error;
  }
}
