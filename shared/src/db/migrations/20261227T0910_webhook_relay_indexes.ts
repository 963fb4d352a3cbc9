import { sql, type Kysely } from "kysely";

// Two looks of 20261227T0900 that no index served, each a scan of every row it passes over:
// - the relay's wake timer asks, on every pass, when the earliest retry waiting unqueued comes due
//   (nextDueAt): an index on next_attempt_at over those rows answers from its first entry, however
//   long an endpoint's backlog of due deliveries;
// - maintenance now forgets every delivery older than a week, stuck pending ones too, once a minute in
//   every API process: the settled-only index on created_at cannot serve that, so it covers all rows.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending' AND NOT enqueued;
    DROP INDEX webhook_deliveries_settled;
    CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX webhook_deliveries_created;
    CREATE INDEX webhook_deliveries_settled ON webhook_deliveries (created_at) WHERE state <> 'pending';
    DROP INDEX webhook_deliveries_due;
  `.execute(db);
}
