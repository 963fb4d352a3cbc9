import { setTimeout as sleep } from "node:timers/promises";
import { ERRORS, type Lock, type Locker, type RequestRelease } from "@tus/utils";
import pg from "pg";
import { poolConfig } from "@caption/shared/db/database";

// How often a waiting request asks again, and how long it waits in all before the client is told to retry.
const RETRY_MS = 25;
const ACQUIRE_TIMEOUT_MS = 20_000;
// Connections of the lock pool: one per upload request in progress in this process.
const MAX_CONNECTIONS = 64;

export interface UploadLocker extends Locker {
  close(): Promise<void>;
}

/**
 * The tus Locker across API processes: one upload's requests take turns through a PostgreSQL session
 * advisory lock, held on a connection of its own for the request's length (a process that dies
 * releases it with its connection). A holder in this process is asked to let go, as tus's own
 * in-memory locker does, so a client resuming after a dropped connection does not wait out the stale
 * request; a holder elsewhere finishes first, after which the waiting request sees the new offset.
 */
export function createUploadLocker(databaseUrl: string): UploadLocker {
  const pool = new pg.Pool(poolConfig(databaseUrl, { max: MAX_CONNECTIONS, applicationName: "caption-upload-locks" }));
  pool.on("error", () => undefined);
  const holders = new Map<string, RequestRelease>();
  return {
    newLock(id: string): Lock {
      let client: pg.PoolClient | undefined;
      return {
        async lock(signal, requestRelease) {
          const deadline = Date.now() + ACQUIRE_TIMEOUT_MS;
          const connection = await pool.connect();
          try {
            for (;;) {
              if (signal.aborted) throw ERRORS.ABORTED;
              const { rows } = await connection.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked", [`upload\n${id}`]);
              if (rows[0]?.locked) break;
              if (Date.now() >= deadline) throw ERRORS.ERR_LOCK_TIMEOUT;
              await holders.get(id)?.();
              await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
            }
          } catch (error) {
            connection.release();
            throw error;
          }
          client = connection;
          holders.set(id, requestRelease);
        },
        async unlock() {
          const connection = client;
          if (!connection) return;
          client = undefined;
          holders.delete(id);
          try {
            await connection.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [`upload\n${id}`]);
            connection.release();
          } catch (error) {
            // A connection that cannot unlock is dropped: closing it releases the lock.
            connection.release(error as Error);
          }
        },
      };
    },
    close: () => pool.end(),
  };
}
