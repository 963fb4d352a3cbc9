import { sql, type Transaction } from "kysely";
import type { DbOrTrx as Db } from "./database.ts";
import type { Database } from "./tables.ts";

export interface Balance {
  granted: number;
  /** Open reservations: reserved for a job that is neither charged nor released. */
  reserved: number;
  consumed: number;
  /** granted − consumed − reserved; never negative. */
  available: number;
}

/** Usage figures derived from the append-only ledger, never stored. */
export async function accountBalance(db: Db, accountId: string): Promise<Balance> {
  const row = await db
    .selectFrom("credit_ledger as l")
    .where("l.account_id", "=", accountId)
    .select([
      sql<string>`coalesce(sum(l.seconds) FILTER (WHERE l.kind = 'grant'), 0)`.as("granted"),
      sql<string>`coalesce(sum(l.seconds) FILTER (WHERE l.kind = 'charge'), 0)`.as("consumed"),
      sql<string>`coalesce(sum(l.seconds) FILTER (WHERE l.kind = 'reserve' AND NOT EXISTS (
        SELECT 1 FROM credit_ledger s WHERE s.job_id = l.job_id AND s.kind IN ('charge', 'release'))), 0)`.as("reserved"),
    ])
    .executeTakeFirstOrThrow();
  const granted = Number(row.granted);
  const consumed = Number(row.consumed);
  const reserved = Number(row.reserved);
  return { granted, consumed, reserved, available: granted - consumed - reserved };
}

export async function grantCredits(db: Db, accountId: string, seconds: number, note: string | null = null): Promise<void> {
  await db.insertInto("credit_ledger").values({ account_id: accountId, kind: "grant", seconds, job_id: null, note }).execute();
}

export type ReserveOutcome = "reserved" | "already-reserved" | "insufficient";

/**
 * Reserves `seconds` for a job if the account can cover it. Must run inside a transaction: the
 * account row lock serialises concurrent reservations so the balance check cannot race.
 */
export async function reserveCredits(trx: Transaction<Database>, accountId: string, jobId: string, seconds: number): Promise<ReserveOutcome> {
  await trx.selectFrom("accounts").select("id").where("id", "=", accountId).forNoKeyUpdate().executeTakeFirstOrThrow();
  const existing = await trx.selectFrom("credit_ledger").select("id").where("job_id", "=", jobId).where("kind", "=", "reserve").executeTakeFirst();
  if (existing) return "already-reserved";
  const { available } = await accountBalance(trx, accountId);
  if (available < seconds) return "insufficient";
  await trx.insertInto("credit_ledger").values({ account_id: accountId, kind: "reserve", seconds, job_id: jobId, note: null }).execute();
  return "reserved";
}

/**
 * Settles a job's open reservation as a charge (kind "charge") or a release. Returns the seconds
 * settled, or 0 when there was no reservation or it was already settled: the unique settlement
 * index makes a second charge, a second release, or a charge after a release impossible.
 * Callers hold the job row's lock (SELECT … FOR NO KEY UPDATE), which orders settlements against the
 * job's state change and avoids lock-order deadlocks with the row's foreign-key checks.
 */
export async function settleReservation(db: Db, jobId: string, kind: "charge" | "release"): Promise<number> {
  const result = await sql<{ seconds: number }>`
    INSERT INTO credit_ledger (account_id, kind, seconds, job_id)
    SELECT account_id, ${kind}, seconds, job_id FROM credit_ledger WHERE job_id = ${jobId} AND kind = 'reserve'
    ON CONFLICT (job_id) WHERE kind IN ('charge', 'release') DO NOTHING
    RETURNING seconds`.execute(db);
  return result.rows[0]?.seconds ?? 0;
}
