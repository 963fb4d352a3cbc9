import { sql } from "kysely";
import { ACTIVE_STATUSES, type JobStatus } from "../api/job.ts";
import type { QualitySummary } from "../api/quality-report.ts";
import type { JobErrorCode } from "../errors/codes.ts";
import { withoutPaths } from "../errors/redact-paths.ts";
import type { DbOrTrx } from "./database.ts";
import type { JobRow, NewJobRow } from "./tables.ts";

// The job lifecycle's SQL on job rows (jobs/job-lifecycle.ts locks, decides, settles the ledger and
// counts around them), for the API and the worker alike: plain functions over a connection or a
// transaction, the caller owning the transaction. What each process only reads stays with it
// (control-plane/src/db/job-repository.ts, gpu-worker/src/db/job-repository.ts).

const now = sql<Date>`now()`;

export async function insertJob(db: DbOrTrx, job: NewJobRow): Promise<void> {
  await db.insertInto("jobs").values(job).execute();
}
/** The job's account and status, its row locked against other transitions until the transaction ends. */
export async function lockJob(trx: DbOrTrx, jobId: string): Promise<{ account_id: string; status: JobStatus }> {
  return trx.selectFrom("jobs").select(["account_id", "status"]).where("id", "=", jobId).forNoKeyUpdate().executeTakeFirstOrThrow();
}
/** The account's job, its row locked like lockJob's; undefined when the account has no such job. */
export async function lockAccountJob(trx: DbOrTrx, accountId: string, jobId: string): Promise<Pick<JobRow, "id" | "status"> | undefined> {
  return trx.selectFrom("jobs").select(["id", "status"]).where("id", "=", jobId).where("account_id", "=", accountId).forNoKeyUpdate().executeTakeFirst();
}

export async function countAttempt(db: DbOrTrx, jobId: string): Promise<void> {
  await db.updateTable("jobs").set((eb) => ({ attempts: eb("attempts", "+", 1) })).where("id", "=", jobId).execute();
}
/** Moves a running job to `status` with progress never going down. False when the job is no longer running. */
export async function advanceRunningJob(db: DbOrTrx, jobId: string, update: { status?: JobStatus; progress: number }): Promise<boolean> {
  const result = await db
    .updateTable("jobs")
    .set((eb) => ({
      ...(update.status ? { status: update.status } : {}),
      progress: sql<number>`greatest(${eb.ref("progress")}, ${Math.min(100, update.progress)})`,
      updated_at: now,
      started_at: sql<Date>`coalesce(${eb.ref("started_at")}, now())`,
    }))
    .where("id", "=", jobId)
    .where("status", "in", ACTIVE_STATUSES)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
export async function recordReservation(db: DbOrTrx, jobId: string, seconds: number): Promise<void> {
  await db.updateTable("jobs").set({ reserved_seconds: seconds, updated_at: now }).where("id", "=", jobId).execute();
}
export interface CompletedFiles {
  videoKey: string;
  srtKey: string;
  vttKey: string;
  assKey: string;
  transcriptKey: string;
  sourceVideoKey: string;
  /** Bytes of the stored files but the source video. */
  storedBytes: number;
  qualityKey: string;
  quality: QualitySummary;
  /** The pictures and the transparent overlay; null where the job has none (the overlay for kind burned). */
  posterKey: string | null;
  previewStripKey: string | null;
  overlayWebmKey: string | null;
  overlayMovKey: string | null;
  expiresAt: Date;
}
export async function markCompleted(db: DbOrTrx, jobId: string, billedSeconds: number, files: CompletedFiles): Promise<void> {
  await db
    .updateTable("jobs")
    .set({
      status: "completed",
      progress: 100,
      billed_seconds: billedSeconds,
      reserved_seconds: 0,
      video_key: files.videoKey,
      srt_key: files.srtKey,
      transcript_key: files.transcriptKey,
      vtt_key: files.vttKey,
      ass_key: files.assKey,
      source_video_key: files.sourceVideoKey,
      stored_bytes: files.storedBytes,
      quality_key: files.qualityKey,
      quality: JSON.stringify(files.quality),
      poster_key: files.posterKey,
      preview_strip_key: files.previewStripKey,
      overlay_webm_key: files.overlayWebmKey,
      overlay_mov_key: files.overlayMovKey,
      expires_at: files.expiresAt,
      finished_at: now,
      updated_at: now,
    })
    .where("id", "=", jobId)
    .execute();
}
/** Job messages are shown to clients: whatever produced the message, no path of the worker's disk survives here. */
export async function markFailed(db: DbOrTrx, jobId: string, code: JobErrorCode, message: string): Promise<void> {
  await db
    .updateTable("jobs")
    .set({ status: "failed", error_code: code, error_message: withoutPaths(message), reserved_seconds: 0, finished_at: now, updated_at: now })
    .where("id", "=", jobId)
    .execute();
}
export async function markCanceled(db: DbOrTrx, jobId: string): Promise<Pick<JobRow, "id" | "status">> {
  return db
    .updateTable("jobs")
    .set({ status: "canceled", reserved_seconds: 0, finished_at: now, updated_at: now })
    .where("id", "=", jobId)
    .returning(["id", "status"])
    .executeTakeFirstOrThrow();
}
/** Puts a running job back in the queue. False when the job is no longer running. */
export async function requeueRunningJob(db: DbOrTrx, jobId: string): Promise<boolean> {
  const result = await db.updateTable("jobs").set({ status: "queued", updated_at: now }).where("id", "=", jobId).where("status", "in", ACTIVE_STATUSES).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
/**
 * Up to `limit` jobs whose files are past `expires_at` and not yet deleted, locked; rows another
 * transaction holds are skipped, and so are sources that an unfinished render job still reads.
 */
export async function claimExpiredJobs(trx: DbOrTrx, limit: number): Promise<string[]> {
  const rows = await trx
    .selectFrom("jobs as source")
    .select("source.id")
    // Completed jobs when their 24 h are over; failed and canceled ones at once: an attempt that died
    // (the dead-letter path) may have left files no one else will delete.
    .where(({ or, eb }) => or([eb("source.expires_at", "<=", now), eb.and([eb("source.status", "in", ["failed", "canceled"]), eb("source.finished_at", "<=", now)])]))
    .where("source.files_deleted_at", "is", null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom("jobs as render").select("render.id").whereRef("render.source_job_id", "=", "source.id").where("render.status", "in", ACTIVE_STATUSES))),
    )
    .limit(limit)
    .forNoKeyUpdate()
    .skipLocked()
    .execute();
  return rows.map((row) => row.id);
}
/**
 * Of `jobIds`, those an unfinished render job reads from. Asked again once the rows are locked: a render
 * request that committed while the claim was being made holds its source's lock until its commit, so a
 * statement after the claim sees it.
 */
export async function sourcesOfActiveRenders(trx: DbOrTrx, jobIds: readonly string[]): Promise<Set<string>> {
  if (jobIds.length === 0) return new Set();
  const rows = await trx
    .selectFrom("jobs")
    .select("source_job_id")
    .distinct()
    .where("source_job_id", "in", jobIds)
    .where("status", "in", ACTIVE_STATUSES)
    .execute();
  return new Set(rows.flatMap((row) => (row.source_job_id === null ? [] : [row.source_job_id])));
}
/**
 * Records that the jobs' files are deleted and forgets their keys, and the edited words the database
 * held (the 24 h promise covers text too); the jobs keep their state.
 */
export async function forgetResultFiles(db: DbOrTrx, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await db
    .updateTable("jobs")
    .set({
      files_deleted_at: now,
      words: null,
      video_key: null,
      srt_key: null,
      vtt_key: null,
      ass_key: null,
      transcript_key: null,
      source_video_key: null,
      quality_key: null,
      poster_key: null,
      preview_strip_key: null,
      overlay_webm_key: null,
      overlay_mov_key: null,
    })
    .where("id", "in", jobIds)
    .execute();
}
