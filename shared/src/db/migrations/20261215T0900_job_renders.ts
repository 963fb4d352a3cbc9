import { sql, type Kysely } from "kysely";

// Render jobs (POST /v1/jobs/{id}/renders): a job either captions a submitted video or renders a
// completed one again from its stored original, with the edited words stored on the row so every
// attempt renders the same. Every completed job also keeps WebVTT and ASS files and its original video.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE jobs
      ADD COLUMN kind text NOT NULL DEFAULT 'caption' CHECK (kind IN ('caption', 'render')),
      ADD COLUMN source_job_id text REFERENCES jobs(id),
      ADD COLUMN words jsonb CHECK (words IS NULL OR jsonb_typeof(words) = 'array'),
      ADD COLUMN vtt_key text,
      ADD COLUMN ass_key text,
      ADD COLUMN source_video_key text,
      ADD CONSTRAINT jobs_render_has_source CHECK ((kind = 'render') = (source_job_id IS NOT NULL)),
      ADD CONSTRAINT jobs_words_only_on_renders CHECK (kind = 'render' OR words IS NULL);
    -- The expiry of a source's files waits for its unfinished render jobs (they read those files).
    CREATE INDEX jobs_source_job ON jobs (source_job_id) WHERE source_job_id IS NOT NULL;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX jobs_source_job;
    ALTER TABLE jobs
      DROP CONSTRAINT jobs_words_only_on_renders,
      DROP CONSTRAINT jobs_render_has_source,
      DROP COLUMN source_video_key,
      DROP COLUMN ass_key,
      DROP COLUMN vtt_key,
      DROP COLUMN words,
      DROP COLUMN source_job_id,
      DROP COLUMN kind;
  `.execute(db);
}
