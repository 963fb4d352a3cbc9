import { setTimeout as sleep } from "node:timers/promises";
import { ERRORS, type Lock, type Locker, type RequestRelease } from "@tus/utils";
import pg from "pg";
import { CONNECTION_BUDGET } from "@caption/shared/db/connection-budget";
import { poolConfig } from "@caption/shared/db/database";

// How long a waiting request waits before it asks again: from the first retry, doubling up to the most.
const FIRST_RETRY_MS = 25;
const MOST_RETRY_MS = 200;
// How long it waits in all before the client is told to retry.
const ACQUIRE_TIMEOUT_MS = 20_000;

/** The text whose hash is the advisory lock of tus's upload `lockId` (the upload's id in storage). */
export const uploadLockKey = (lockId: string) => `upload\n${lockId}`;

export interface UploadLocker extends Locker {
  close(): Promise<void>;
}

/**
 * The tus Locker across API processes: one upload's requests take turns through a PostgreSQL session
 * advisory lock, held on a connection of its own for the request's length (a process that dies
 * releases it with its connection). A holder in this process is asked to let go, as tus's own
 * in-memory locker does, so a client resuming after a dropped connection does not wait out the stale
 * request; a holder elsewhere finishes first, after which the waiting request sees the new offset.
 *
 * A request waiting for a lock holds no connection: it tries (`pg_try_advisory_lock`), and when the lock
 * is taken gives its connection back before it waits to try again. A waiter that kept its connection
 * (blocking in `pg_advisory_lock`, even under a `lock_timeout`) would let requests held open on one
 * upload take the whole pool from every other upload; trying costs one short statement per retry instead.
 */
export function createUploadLocker(databaseUrl: string): UploadLocker {
  const pool = new pg.Pool(poolConfig(databaseUrl, { max: CONNECTION_BUDGET.api.uploadLocks, applicationName: "caption-upload-locks" }));
  pool.on("error", () => undefined);
  const holders = new Map<string, RequestRelease>();

  /** The lock's connection when this try took it; undefined (its connection given back) when another holds it. */
  async function tryLock(id: string): Promise<pg.PoolClient | undefined> {
    const connection = await pool.connect();
    try {
      const { rows } = await connection.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked", [uploadLockKey(id)]);
      if (rows[0]?.locked) return connection;
    } catch (error) {
      connection.release(error as Error);
      throw error;
    }
    connection.release();
    return undefined;
  }

  return {
    newLock(id: string): Lock {
      let client: pg.PoolClient | undefined;
      return {
        async lock(signal, requestRelease) {
          const deadline = Date.now() + ACQUIRE_TIMEOUT_MS;
          for (let retryMs = FIRST_RETRY_MS; ; retryMs = Math.min(retryMs * 2, MOST_RETRY_MS)) {
            if (signal.aborted) throw ERRORS.ABORTED;
            const connection = await tryLock(id);
            if (connection) {
              client = connection;
              holders.set(id, requestRelease);
              return;
            }
            if (Date.now() >= deadline) throw ERRORS.ERR_LOCK_TIMEOUT;
            await holders.get(id)?.();
            await sleep(retryMs, undefined, { signal }).catch(() => undefined);
          }
        },
        async unlock() {
          const connection = client;
          if (!connection) return;
          client = undefined;
          holders.delete(id);
          try {
            await connection.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [uploadLockKey(id)]);
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
