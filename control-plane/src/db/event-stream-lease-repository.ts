import { sql } from "kysely";
import type { Db, DbOrTrx } from "@caption/shared/db/database";

/**
 * A lease for one more event stream of the key, or null when `limit` unexpired leases are held already.
 * Leases of one key are taken one at a time (a transaction-scoped advisory lock on the key), so racing
 * requests on several API processes cannot pass the limit together; expired leases (their process
 * died without releasing them) are deleted on the way.
 */
export async function takeEventStreamLease(db: Db, apiKeyId: string, limit: number, ttlSeconds: number): Promise<number | null> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`event_stream_leases:${apiKeyId}`}, 0))`.execute(trx);
    await trx.deleteFrom("event_stream_leases").where("api_key_id", "=", apiKeyId).where("expires_at", "<=", sql<Date>`now()`).execute();
    const held = await trx.selectFrom("event_stream_leases").select((eb) => eb.fn.countAll<string>().as("count")).where("api_key_id", "=", apiKeyId).executeTakeFirst();
    if (Number(held?.count ?? 0) >= limit) return null;
    const row = await trx
      .insertInto("event_stream_leases")
      .values({ api_key_id: apiKeyId, expires_at: sql<Date>`now() + make_interval(secs => ${ttlSeconds})` })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  });
}

/** Pushes the expiry of this process's open streams' leases `ttlSeconds` ahead. */
export async function renewEventStreamLeases(db: DbOrTrx, ids: readonly number[], ttlSeconds: number): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable("event_stream_leases")
    .set({ expires_at: sql<Date>`now() + make_interval(secs => ${ttlSeconds})` })
    .where("id", "in", ids)
    .execute();
}

export async function releaseEventStreamLeases(db: DbOrTrx, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom("event_stream_leases").where("id", "in", ids).execute();
}
