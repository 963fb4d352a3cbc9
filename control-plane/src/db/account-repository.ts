import type { AccountRow } from "@caption/shared/db/tables";
import type { DbOrTrx } from "@caption/shared/db/database";

export async function insertAccount(db: DbOrTrx, account: { id: string; name: string; concurrency_limit?: number; rate_limit_per_minute?: number }): Promise<void> {
  await db.insertInto("accounts").values(account).execute();
}

export async function findAccount(db: DbOrTrx, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * Locks the account row: submissions and reservations of one account run one at a time. NO KEY
 * UPDATE, because inserting a job or ledger row takes KEY SHARE on the account (foreign key) and
 * FOR UPDATE would deadlock against it.
 */
export async function lockAccount(db: DbOrTrx, id: string): Promise<AccountRow> {
  return db.selectFrom("accounts").selectAll().where("id", "=", id).forNoKeyUpdate().executeTakeFirstOrThrow();
}
