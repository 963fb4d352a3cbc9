import { sql, type Kysely } from "kysely";

// Subtitle files laid out by a profile (netflix, bbc, vertical), a quality report stored with every completed
// job's files and summarised on the row, and a submission's own vocabulary, replacements and profanity mode.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE jobs
      ADD COLUMN subtitle_profile text NOT NULL DEFAULT 'netflix' CHECK (subtitle_profile IN ('netflix', 'bbc', 'vertical')),
      ADD COLUMN vocabulary jsonb CHECK (vocabulary IS NULL OR jsonb_typeof(vocabulary) = 'array'),
      ADD COLUMN replacements jsonb CHECK (replacements IS NULL OR jsonb_typeof(replacements) = 'object'),
      ADD COLUMN profanity text NOT NULL DEFAULT 'keep' CHECK (profanity IN ('keep', 'mask')),
      ADD COLUMN quality_key text,
      ADD COLUMN quality jsonb CHECK (quality IS NULL OR jsonb_typeof(quality) = 'object');
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE jobs
      DROP COLUMN quality,
      DROP COLUMN quality_key,
      DROP COLUMN profanity,
      DROP COLUMN replacements,
      DROP COLUMN vocabulary,
      DROP COLUMN subtitle_profile;
  `.execute(db);
}
