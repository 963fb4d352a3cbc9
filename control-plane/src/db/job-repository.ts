import type { JobRow } from "@caption/shared/db/tables";
import { sql } from "kysely";
import type { DbOrTrx } from "@caption/shared/db/database";

// What the API alone reads of job rows. The job's transitions (submit, cancel…) are the lifecycle's
// (@caption/shared/jobs/job-lifecycle).

/**
 * A job as the API reads it: every column but a render job's edited words (megabytes at most) and a caption
 * job's vocabulary and replacements (read by the worker alone), so polling never carries them. A column
 * missing from the list fails type-checking.
 */
export type JobRecord = Omit<JobRow, "words" | "vocabulary" | "replacements" | "stored_bytes">;
export const RECORD_COLUMNS = [
  "id", "account_id", "kind", "source_job_id", "status", "progress", "video_url", "upload_id", "preset", "language", "style", "max_duration_seconds",
  "media", "resolved_style", "duration_seconds", "source_sha256", "source_bytes", "reserved_seconds", "billed_seconds", "error_code",
  "error_message", "video_key", "srt_key", "transcript_key", "vtt_key", "ass_key", "source_video_key", "traceparent", "attempts",
  "created_at", "updated_at", "started_at", "finished_at", "expires_at", "files_deleted_at", "base_url",
  "subtitle_profile", "profanity", "quality_key", "quality",
  "output_kind", "poster_key", "preview_strip_key", "overlay_webm_key", "overlay_mov_key",
] as const satisfies readonly (keyof JobRecord)[];

export async function findJob(db: DbOrTrx, accountId: string, jobId: string, options: { lock?: boolean } = {}): Promise<JobRecord | undefined> {
  let query = db.selectFrom("jobs").select(RECORD_COLUMNS).where("id", "=", jobId).where("account_id", "=", accountId);
  if (options.lock) query = query.forNoKeyUpdate();
  return query.executeTakeFirst();
}

/** Any account's job (without its edited words): for work the service does on its own behalf (webhook payloads), never for a client's request. */
export async function loadJobRecord(db: DbOrTrx, jobId: string): Promise<JobRecord | undefined> {
  return db.selectFrom("jobs").select(RECORD_COLUMNS).where("id", "=", jobId).executeTakeFirst();
}

/**
 * Bytes the account's kept files take: every completed job's outputs whose files are not deleted, the
 * source videos among them once each (render jobs reuse their source's video: one file, one count), and
 * every finished upload not yet deleted (a job's source is a copy of its upload, and both are kept).
 */
export async function storedBytesOf(db: DbOrTrx, accountId: string): Promise<number> {
  const { rows } = await sql<{ outputs: string | null; sources: string | null; uploads: string | null }>`
    WITH kept AS (
      SELECT stored_bytes, source_sha256, source_bytes FROM jobs
      WHERE account_id = ${accountId} AND status = 'completed' AND files_deleted_at IS NULL
    )
    SELECT (SELECT sum(stored_bytes) FROM kept) AS outputs,
           (SELECT sum(source_bytes) FROM (SELECT DISTINCT source_sha256, source_bytes FROM kept WHERE source_sha256 IS NOT NULL) AS videos) AS sources,
           (SELECT sum(size_bytes) FROM uploads WHERE account_id = ${accountId} AND completed_at IS NOT NULL AND deleted_at IS NULL) AS uploads
  `.execute(db);
  return Number(rows[0]?.outputs ?? 0) + Number(rows[0]?.sources ?? 0) + Number(rows[0]?.uploads ?? 0);
}
