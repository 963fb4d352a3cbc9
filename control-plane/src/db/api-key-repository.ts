import { sql } from "kysely";
import type { Scope } from "@caption/shared/api/scopes";
import type { DbOrTrx } from "@caption/shared/db/database";

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
 * Finds the active key with this prefix and whole-key hash and counts this request in its per-minute window,
 * in one round trip. A wrong secret finds nothing and counts nothing, so guessing at a known prefix cannot use
 * up its owner's rate. The counter lives in the database so the limit holds across API processes; the
 * window is the minute of `at`, the API's clock.
 */
export async function findKeyAndCountRequest(db: DbOrTrx, prefix: string, secretHash: string, at: Date): Promise<KeyWithRateCount | undefined> {
  const result = await sql<KeyWithRateCount>`
    WITH key AS (
      SELECT k.id, k.account_id, k.scopes, a.rate_limit_per_minute
      FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.prefix = ${prefix} AND k.secret_hash = ${secretHash} AND k.revoked_at IS NULL
    ), counted AS (
      INSERT INTO rate_limit_windows (api_key_id, window_start, count)
      SELECT id, date_trunc('minute', ${at}::timestamptz), 1 FROM key
      ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
      RETURNING count, window_start
    )
    SELECT key.*, counted.count AS window_count, counted.window_start FROM key, counted`.execute(db);
  return result.rows[0];
}

export async function insertApiKey(
  db: DbOrTrx,
  key: { id: string; account_id: string; name: string; prefix: string; secret_hash: string; scopes: Scope[] },
): Promise<void> {
  await db.insertInto("api_keys").values(key).execute();
}

export async function revokeApiKeyByPrefix(db: DbOrTrx, prefix: string): Promise<{ id: string; account_id: string } | undefined> {
  return db
    .updateTable("api_keys")
    .set({ revoked_at: new Date() })
    .where("prefix", "=", prefix)
    .where("revoked_at", "is", null)
    .returning(["id", "account_id"])
    .executeTakeFirst();
}

export async function deleteRateWindowsBefore(db: DbOrTrx, before: Date): Promise<void> {
  await db.deleteFrom("rate_limit_windows").where("window_start", "<", before).execute();
}
