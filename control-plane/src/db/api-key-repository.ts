import { sql } from "kysely";
import type { Scope } from "@caption/shared/api/scopes";
import type { Db, DbOrTrx } from "@caption/shared/db/database";
import type { UploadRow } from "@caption/shared/db/tables";
import { RECORD_COLUMNS, type JobRecord } from "./job-repository.ts";

export interface KeyWithRateCount {
  id: string;
  account_id: string;
  scopes: Scope[];
  rate_limit_per_minute: number;
  /** Requests counted in the current window, including this one. */
  window_count: number;
  window_start: Date;
}

/**
 * The active key with this prefix and whole-key hash, with this request counted in its per-minute window,
 * as the head of one statement. A wrong secret finds nothing and counts nothing, so guessing at a known
 * prefix cannot use up its owner's rate. The counter lives in the database so the limit holds across API
 * processes; the window is the minute of `at`, the API's clock.
 *
 * The statement is its own transaction and writes nothing but the count, so it commits without waiting
 * for the WAL to reach the disk (`synchronous_commit` off for this transaction alone): a crash may lose
 * the last fraction of a second of counts, and no request waits in line behind other transactions'
 * flushes (one account's submissions would otherwise slow every other account's polls). Never run it
 * inside a transaction: the setting would cover that transaction's writes too.
 */
const countedKey = (prefix: string, secretHash: string, at: Date) => sql`
    WITH key AS (
      SELECT k.id, k.account_id, k.scopes, a.rate_limit_per_minute
      FROM api_keys k JOIN accounts a ON a.id = k.account_id ${ASYNC_COMMIT}
      WHERE k.prefix = ${prefix} AND k.secret_hash = ${secretHash} AND k.revoked_at IS NULL
    ), ${counted("key", "id", at)}`;

/** Joined into the statement's first CTE: the statement's transaction commits without waiting for the WAL (above). */
const ASYNC_COMMIT = sql`CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

/** The CTE `counted`: this request counted in the minute of `at` of the key whose id is column `keyId` of CTE `source`'s row. */
const counted = (source: string, keyId: string, at: Date) => sql`counted AS (
      INSERT INTO rate_limit_windows (api_key_id, window_start, count)
      SELECT ${sql.ref(keyId)}, date_trunc('minute', ${at}::timestamptz), 1 FROM ${sql.table(source)}
      ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
      RETURNING count, window_start
    )`;

function refuseTransaction(db: Db): void {
  if (db.isTransaction) throw new Error("a key is counted in a statement of its own, never inside a transaction (it commits asynchronously)");
}

/** Finds the key and counts this request, in one round trip. */
export async function findKeyAndCountRequest(db: Db, prefix: string, secretHash: string, at: Date): Promise<KeyWithRateCount | undefined> {
  refuseTransaction(db);
  const result = await sql<KeyWithRateCount>`${countedKey(prefix, secretHash, at)}
    SELECT key.*, counted.count AS window_count, counted.window_start FROM key, counted`.execute(db);
  return result.rows[0];
}

/**
 * Any account's upload, with the request counted in the per-minute window of the key that created it, in one
 * round trip (an upload URL's request carries no key; its right is its signature, checked before). Like the
 * key's own count, a statement of its own committed without waiting for the WAL.
 */
export async function findUploadAndCountRequest(db: Db, uploadId: string, at: Date): Promise<{ upload: UploadRow; key: KeyWithRateCount } | undefined> {
  refuseTransaction(db);
  const result = await sql<UploadRow & { key_scopes: Scope[]; rate_limit_per_minute: number; window_count: number; window_start: Date }>`
    WITH upload AS (
      SELECT u.*, k.scopes AS key_scopes, a.rate_limit_per_minute
      FROM uploads u JOIN api_keys k ON k.id = u.api_key_id JOIN accounts a ON a.id = u.account_id ${ASYNC_COMMIT}
      WHERE u.id = ${uploadId}
    ), ${counted("upload", "api_key_id", at)}
    SELECT upload.*, counted.count AS window_count, counted.window_start FROM upload, counted`.execute(db);
  const row = result.rows[0];
  if (!row) return undefined;
  const { key_scopes, rate_limit_per_minute, window_count, window_start, ...upload } = row;
  return { upload, key: { id: upload.api_key_id, account_id: upload.account_id, scopes: key_scopes, rate_limit_per_minute, window_count, window_start } };
}

type KeyColumns = { key_id: string; key_account_id: string; key_scopes: Scope[]; rate_limit_per_minute: number; window_count: number; window_start: Date };
type JobColumns = { [column in keyof JobRecord]: JobRecord[column] | null };

/**
 * Finds the key, counts this request and reads the key's account's job `jobId`, in one round trip: polling
 * is the API's busiest request, and this halves its statements. `job` is null for a job that does not
 * exist or belongs to another account.
 */
export async function findKeyAndCountRequestWithJob(
  db: Db,
  prefix: string,
  secretHash: string,
  at: Date,
  jobId: string,
): Promise<{ key: KeyWithRateCount; job: JobRecord | null } | undefined> {
  refuseTransaction(db);
  const result = await sql<KeyColumns & JobColumns>`${countedKey(prefix, secretHash, at)}
    SELECT key.id AS key_id, key.account_id AS key_account_id, key.scopes AS key_scopes, key.rate_limit_per_minute,
           counted.count AS window_count, counted.window_start, ${sql.join(RECORD_COLUMNS.map((column) => sql.ref(`j.${column}`)))}
    FROM key CROSS JOIN counted LEFT JOIN jobs j ON j.id = ${jobId} AND j.account_id = key.account_id`.execute(db);
  const row = result.rows[0];
  if (!row) return undefined;
  const { key_id, key_account_id, key_scopes, rate_limit_per_minute, window_count, window_start, ...job } = row;
  const key = { id: key_id, account_id: key_account_id, scopes: key_scopes, rate_limit_per_minute, window_count, window_start };
  return { key, job: isJobRow(job) ? job : null };
}

// A LEFT JOIN that matched nothing gives every job column null; a job row always has its id.
const isJobRow = (columns: JobColumns): columns is JobRecord => columns.id !== null;

export async function insertApiKey(
  db: DbOrTrx,
  key: { id: string; account_id: string; name: string; prefix: string; secret_hash: string; scopes: Scope[] },
): Promise<void> {
  await db.insertInto("api_keys").values(key).execute();
}

export async function revokeApiKeyByPrefix(db: DbOrTrx, prefix: string, now: Date): Promise<{ id: string; account_id: string } | undefined> {
  return db
    .updateTable("api_keys")
    .set({ revoked_at: now })
    .where("prefix", "=", prefix)
    .where("revoked_at", "is", null)
    .returning(["id", "account_id"])
    .executeTakeFirst();
}

export async function deleteRateWindowsBefore(db: DbOrTrx, before: Date): Promise<void> {
  await db.deleteFrom("rate_limit_windows").where("window_start", "<", before).execute();
}
