import { sql } from "kysely";
import type { DbOrTrx } from "@caption/shared/db/database";

export interface IdempotencyRecord {
  request_hash: string;
  job_id: string;
}

/**
 * Serialises requests that share (account, key) until the holder's transaction ends, so a
 * concurrent duplicate waits for the first and then replays it.
 */
export async function lockIdempotencyKey(db: DbOrTrx, accountId: string, key: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${accountId}\n${key}`}, 0))`.execute(db);
}

export async function findLiveIdempotencyRecord(db: DbOrTrx, accountId: string, key: string): Promise<IdempotencyRecord | undefined> {
  return db
    .selectFrom("idempotency_keys")
    .select(["request_hash", "job_id"])
    .where("account_id", "=", accountId)
    .where("key", "=", key)
    .where("expires_at", ">", sql<Date>`now()`)
    .executeTakeFirst();
}

export async function saveIdempotencyRecord(
  db: DbOrTrx,
  record: { account_id: string; key: string; request_hash: string; job_id: string; ttlSeconds: number },
): Promise<void> {
  const expires = sql<Date>`now() + make_interval(secs => ${record.ttlSeconds})`;
  await db
    .insertInto("idempotency_keys")
    .values({ account_id: record.account_id, key: record.key, request_hash: record.request_hash, job_id: record.job_id, expires_at: expires })
    // An expired record with the same key is replaced by the new request.
    .onConflict((oc) => oc.columns(["account_id", "key"]).doUpdateSet({ request_hash: record.request_hash, job_id: record.job_id, created_at: sql<Date>`now()`, expires_at: expires }))
    .execute();
}

export async function deleteExpiredIdempotencyRecords(db: DbOrTrx): Promise<void> {
  await db.deleteFrom("idempotency_keys").where("expires_at", "<=", sql<Date>`now()`).execute();
}
