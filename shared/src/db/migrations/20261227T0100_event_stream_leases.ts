import { sql, type Kysely } from "kysely";

// An open GET /v1/jobs/{id}/events stream holds a lease row, so that the cap on streams per key holds
// across API processes. The process serving the stream renews its leases; a process that dies leaves
// rows that stop counting once they expire.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE event_stream_leases (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      api_key_id text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL
    )
  `.execute(db);
  await sql`CREATE INDEX event_stream_leases_key ON event_stream_leases (api_key_id, expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE event_stream_leases`.execute(db);
}
