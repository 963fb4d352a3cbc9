import { sql, type Kysely } from "kysely";

// Issue 26. Jobs say what they render (burned captions, a transparent overlay, or both) and keep the
// overlay files, a poster and a preview strip. Previews (POST /v1/previews) have a rate limit of their own
// and hand their pictures from the worker that drew them to the request that waits, through a table whose
// rows live seconds: unlogged, as the rate windows are (a crash loses nothing anyone still waits for).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE jobs
      ADD COLUMN output_kind text NOT NULL DEFAULT 'burned' CHECK (output_kind IN ('burned', 'overlay', 'both')),
      ADD COLUMN poster_key text,
      ADD COLUMN preview_strip_key text,
      ADD COLUMN overlay_webm_key text,
      ADD COLUMN overlay_mov_key text;
    CREATE UNLOGGED TABLE preview_rate_windows (
      api_key_id text NOT NULL,
      window_start timestamptz NOT NULL,
      count integer NOT NULL,
      PRIMARY KEY (api_key_id, window_start)
    );
    CREATE UNLOGGED TABLE preview_results (
      id text PRIMARY KEY,
      content_type text,
      body bytea,
      error_code text,
      error_message text,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((body IS NULL) <> (error_code IS NULL))
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE preview_results, preview_rate_windows;
    ALTER TABLE jobs
      DROP COLUMN overlay_mov_key,
      DROP COLUMN overlay_webm_key,
      DROP COLUMN preview_strip_key,
      DROP COLUMN poster_key,
      DROP COLUMN output_kind;
  `.execute(db);
}
