import type { Kysely } from "kysely";
import type { Database, NewJobRow } from "../db/tables.ts";

type ResultKeys = Pick<NewJobRow, "video_key" | "srt_key" | "transcript_key">;

/**
 * A completed job row whose result files are stored under `<id>/…`, expiring at `expiresAt`:
 * all three unless `keys` says otherwise.
 */
export async function insertCompletedJob(db: Kysely<Database>, job: { id: string; accountId: string; expiresAt: Date; keys?: Partial<ResultKeys> }): Promise<void> {
  const { id } = job;
  await db
    .insertInto("jobs")
    .values({
      id, account_id: job.accountId, status: "completed", progress: 100, video_url: "https://a/b.mp4", preset: "classic", language: null,
      style: "{}", max_duration_seconds: 600, media: null, resolved_style: null, duration_seconds: 3, billed_seconds: 3,
      error_code: null, error_message: null, video_key: `${id}/captioned.mp4`, srt_key: `${id}/captions.srt`, transcript_key: `${id}/transcript.json`,
      ...job.keys,
      traceparent: null, started_at: null, finished_at: new Date(), expires_at: job.expiresAt, files_deleted_at: null,
    })
    .execute();
}
