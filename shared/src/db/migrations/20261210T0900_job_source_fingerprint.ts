import { sql, type Kysely } from "kysely";

// The bytes a job's first inspection saw: a retried attempt that downloads other bytes must not run
// on the first attempt's reservation.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE jobs
      ADD COLUMN source_sha256 text CHECK (source_sha256 ~ '^[0-9a-f]{64}$'),
      ADD COLUMN source_bytes bigint CHECK (source_bytes >= 0),
      ADD CONSTRAINT jobs_source_fingerprint_whole CHECK ((source_sha256 IS NULL) = (source_bytes IS NULL))
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE jobs DROP CONSTRAINT jobs_source_fingerprint_whole, DROP COLUMN source_sha256, DROP COLUMN source_bytes`.execute(db);
}
