import type { Kysely } from "kysely";
import type { WebhookEventType } from "@caption/shared/api/webhook";
import type { Database } from "@caption/shared/db/tables";

/**
 * An account `accountId` with one webhook endpoint per entry of `endpoints`, all created at `createdAt`
 * (ids `we_<accountId>_<i>`, URLs `https://<id>.example.com/`, one fixed secret). Returns the endpoints' ids.
 */
export async function insertAccountWithEndpoints(
  db: Kysely<Database>,
  accountId: string,
  endpoints: readonly { events: WebhookEventType[] }[],
  createdAt: Date,
): Promise<string[]> {
  await db.insertInto("accounts").values({ id: accountId, name: accountId, created_at: createdAt }).execute();
  const ids = endpoints.map((_, i) => `we_${accountId}_${i}`);
  await db
    .insertInto("webhook_endpoints")
    .values(endpoints.map(({ events }, i) => ({ id: ids[i] ?? "", account_id: accountId, url: `https://${ids[i]}.example.com/`, events, secret: "whsec_AAAA", created_at: createdAt })))
    .execute();
  return ids;
}
