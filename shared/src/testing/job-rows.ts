import type { Kysely } from "kysely";
import type { Database, NewJobRow } from "../db/tables.ts";

type ResultKeys = Pick<NewJobRow, "video_key" | "srt_key" | "vtt_key" | "ass_key" | "transcript_key" | "source_video_key">;

/**
 * A completed job row whose result files (and source video) are stored under `<id>/…`, expiring at
 * `expiresAt`: all of them unless `keys` says otherwise; `row` overrides any other column.
 */
export async function insertCompletedJob(
  db: Kysely<Database>,
  job: { id: string; accountId: string; expiresAt: Date; keys?: Partial<ResultKeys>; row?: Partial<NewJobRow> },
): Promise<void> {
  const { id } = job;
  await db
    .insertInto("jobs")
    .values({
      id, account_id: job.accountId, status: "completed", progress: 100, video_url: "https://a/b.mp4", preset: "classic", language: null,
      style: "{}", max_duration_seconds: 600, media: null, resolved_style: null, duration_seconds: 3, billed_seconds: 3,
      error_code: null, error_message: null, video_key: `${id}/captioned.mp4`, srt_key: `${id}/captions.srt`, transcript_key: `${id}/transcript.json`,
      vtt_key: `${id}/captions.vtt`, ass_key: `${id}/captions.ass`, source_video_key: `${id}/source-video`,
      ...job.keys,
      traceparent: null, started_at: null, finished_at: new Date(), expires_at: job.expiresAt, files_deleted_at: null,
      ...job.row,
    })
    .execute();
}

/** A job row just submitted: queued, nothing done yet. */
export async function insertQueuedJob(db: Kysely<Database>, job: { id: string; accountId: string }): Promise<void> {
  await db
    .insertInto("jobs")
    .values({ id: job.id, account_id: job.accountId, status: "queued", video_url: "https://a/b.mp4", preset: "classic", language: null, style: "{}", max_duration_seconds: 600 })
    .execute();
}
