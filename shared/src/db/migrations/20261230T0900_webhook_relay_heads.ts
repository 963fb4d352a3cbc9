import { sql, type Kysely } from "kysely";

// The relay's hand-over (claimDeliveriesToEnqueue) looked for each endpoint's oldest due delivery by
// walking its waiting rows in id order until one was due: an endpoint whose deliveries all wait for a
// retry (a receiver that is down) cost a step per row, every pass. Ordered by when a delivery comes due
// (a new one at its event's time, a retry at its retry's), an endpoint's head is its first index entry:
// due or not, one step. Its deliveries already in the queue (at most one an endpoint) get an index of
// their own, so the pass no longer reads every pending row to find them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE state = 'pending' AND NOT enqueued;
    CREATE INDEX webhook_deliveries_endpoint_queued ON webhook_deliveries (endpoint_id) WHERE state = 'pending' AND enqueued;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX webhook_deliveries_endpoint_queued;
    DROP INDEX webhook_deliveries_endpoint_due;
  `.execute(db);
}
