import { sql, type Kysely } from "kysely";

// The relay re-queues a pending delivery whose queue entry was lost or gave up (its attempt is long
// overdue); this index keeps that periodic look cheap however many settled deliveries are kept.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX webhook_deliveries_overdue ON webhook_deliveries (next_attempt_at) WHERE state = 'pending' AND enqueued`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX webhook_deliveries_overdue`.execute(db);
}
