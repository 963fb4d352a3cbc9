import { sql, type Kysely } from "kysely";

// What a completed job's files take in the result store, its source video apart (that is counted once
// per distinct video of the account, however many render jobs share it: GET /v1/usage's stored_bytes).
// Null for jobs that are not completed, or completed before this was recorded.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE jobs ADD COLUMN stored_bytes bigint`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE jobs DROP COLUMN stored_bytes`.execute(db);
}
