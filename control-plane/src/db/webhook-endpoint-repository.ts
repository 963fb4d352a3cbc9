import type { DbOrTrx } from "@caption/shared/db/database";
import type { WebhookEndpointRow } from "@caption/shared/db/tables";
import type { WebhookEventType } from "@caption/shared/api/webhook";

/** Locks the account row until the transaction ends, so two creations cannot both pass the endpoint limit. */
export async function lockAccountForEndpoints(trx: DbOrTrx, accountId: string): Promise<void> {
  await trx.selectFrom("accounts").select("id").where("id", "=", accountId).forNoKeyUpdate().executeTakeFirstOrThrow();
}

export async function countEndpoints(db: DbOrTrx, accountId: string): Promise<number> {
  const row = await db.selectFrom("webhook_endpoints").select((eb) => eb.fn.countAll<number>().as("n")).where("account_id", "=", accountId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertEndpoint(
  db: DbOrTrx,
  endpoint: { id: string; account_id: string; url: string; events: WebhookEventType[]; secret: string; created_at: Date },
): Promise<WebhookEndpointRow> {
  return db.insertInto("webhook_endpoints").values(endpoint).returningAll().executeTakeFirstOrThrow();
}

export async function listEndpoints(db: DbOrTrx, accountId: string): Promise<WebhookEndpointRow[]> {
  return db.selectFrom("webhook_endpoints").selectAll().where("account_id", "=", accountId).orderBy("created_at").orderBy("id").execute();
}

export async function findEndpoint(db: DbOrTrx, accountId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom("webhook_endpoints").selectAll().where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst();
}

/** Removes the endpoint and, with it, its deliveries (pending ones are never sent). False when it was not there. */
export async function deleteEndpoint(db: DbOrTrx, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom("webhook_endpoints").where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
