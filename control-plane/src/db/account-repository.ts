import type { AccountRow } from "@caption/shared/db/tables";
import type { DbOrTrx } from "@caption/shared/db/database";

export async function insertAccount(
  db: DbOrTrx,
  account: { id: string; name: string; concurrency_limit?: number; rate_limit_per_minute?: number },
): Promise<void> {
  await db.insertInto("accounts").values(account).execute();
}

export async function findAccount(db: DbOrTrx, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
}
