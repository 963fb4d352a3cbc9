import { sql } from "kysely";
import type { DbOrTrx } from "@caption/shared/db/database";
import { WEBHOOKS_CHANNEL } from "@caption/shared/jobs/catalog";
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

/**
 * Counts an attempt's outcome toward the endpoint's health: a success ends the run of failures, a
 * failure extends it (started at `at` if none was running). The endpoint as it now is; undefined when gone.
 */
export async function recordEndpointOutcome(trx: DbOrTrx, id: string, succeeded: boolean, at: Date): Promise<WebhookEndpointRow | undefined> {
  return trx
    .updateTable("webhook_endpoints")
    .set((eb) =>
      succeeded
        ? { failing_since: null, consecutive_failures: 0 }
        : { failing_since: eb.fn.coalesce("failing_since", eb.val(at)), consecutive_failures: eb("consecutive_failures", "+", 1) },
    )
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/** Disables the endpoint and gives up its pending deliveries; undefined when it was disabled already (or is gone). */
export async function disableEndpoint(trx: DbOrTrx, id: string, at: Date, reason: string): Promise<WebhookEndpointRow | undefined> {
  const row = await trx
    .updateTable("webhook_endpoints")
    .set({ disabled_at: at, disabled_reason: reason })
    .where("id", "=", id)
    .where("disabled_at", "is", null)
    .returningAll()
    .executeTakeFirst();
  if (row) await trx.updateTable("webhook_deliveries").set({ state: "failed", next_attempt_at: null }).where("endpoint_id", "=", id).where("state", "=", "pending").execute();
  return row;
}

/** Enables the endpoint again with a clean record; undefined when the account has no such endpoint. */
export async function enableEndpoint(db: DbOrTrx, accountId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable("webhook_endpoints")
    .set({ disabled_at: null, disabled_reason: null, failing_since: null, consecutive_failures: 0 })
    .where("account_id", "=", accountId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Queues an endpoint's own event for the account's other enabled endpoints subscribed to it, with its
 * body fixed now, and wakes the relays. How many deliveries were queued.
 */
export async function queueEndpointEvent(
  trx: DbOrTrx,
  endpoint: WebhookEndpointRow,
  event: { id: string; type: "webhook_endpoint.disabled"; at: Date; payload: string },
): Promise<number> {
  const queued = await trx
    .insertInto("webhook_deliveries")
    .columns(["endpoint_id", "event_id", "type", "event_at", "next_attempt_at", "payload"])
    .expression((eb) =>
      eb
        .selectFrom("webhook_endpoints as e")
        .select(["e.id", eb.val(event.id).as("event_id"), eb.val(event.type).as("type"), eb.val(event.at).as("event_at"), eb.val(event.at).as("next_attempt_at"), eb.val(event.payload).as("payload")])
        .where("e.account_id", "=", endpoint.account_id)
        .where("e.id", "<>", endpoint.id)
        .where("e.disabled_at", "is", null)
        .where(sql<boolean>`${event.type} = ANY (e.events)`),
    )
    .returning("id")
    .execute();
  if (queued.length > 0) await sql`SELECT pg_notify(${WEBHOOKS_CHANNEL}, '')`.execute(trx);
  return queued.length;
}
