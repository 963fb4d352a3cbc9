import { sql, type Kysely } from "kysely";

// Issue 23. Uploads: a file sent to the service (tus or one PUT) instead of a URL it downloads. The bytes
// live in storage under `uploads/<id>`; the row says whose they are, how large they must be, until when
// the upload URL takes bytes, when they were all in, and when they were deleted. A caption job reads
// either a URL or an upload, never both; a render job keeps its source's.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE uploads (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts(id),
      size_bytes bigint NOT NULL CHECK (size_bytes > 0),
      filename text,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      completed_at timestamptz,
      deleted_at timestamptz
    );
    CREATE INDEX uploads_unfinished ON uploads (account_id, expires_at) WHERE completed_at IS NULL AND deleted_at IS NULL;
    CREATE INDEX uploads_live ON uploads (expires_at, completed_at) WHERE deleted_at IS NULL;
    ALTER TABLE jobs
      ALTER COLUMN video_url DROP NOT NULL,
      ADD COLUMN upload_id text REFERENCES uploads(id),
      ADD CONSTRAINT jobs_one_source CHECK (kind <> 'caption' OR ((video_url IS NULL) <> (upload_id IS NULL)));
    CREATE INDEX jobs_upload ON jobs (upload_id) WHERE upload_id IS NOT NULL;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DELETE FROM jobs WHERE video_url IS NULL;
    ALTER TABLE jobs DROP CONSTRAINT jobs_one_source, DROP COLUMN upload_id, ALTER COLUMN video_url SET NOT NULL;
    DROP TABLE uploads;
  `.execute(db);
}
