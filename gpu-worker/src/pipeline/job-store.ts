import { sql } from "kysely";
import { ACTIVE_STATUSES, isTerminal, type JobStatus } from "@caption/shared/api/job";
import { reserveCredits, settleReservation, type ReserveOutcome } from "@caption/shared/db/credit-ledger";
import type { Db, DbOrTrx } from "@caption/shared/db/database";
import type { JobRow } from "@caption/shared/db/tables";
import type { JobErrorCode } from "@caption/shared/errors/codes";
import { captionMetrics, countTransition } from "@caption/shared/telemetry/caption-metrics";

// The worker's view of a job row. Every transition checks the row under lock, so a cancel that
// lands mid-stage wins: a canceled job is never moved on, reserved, charged or failed.
// Metrics are recorded after a change commits, so they count what the database holds.

const now = sql<Date>`now()`;

export async function loadJob(db: DbOrTrx, jobId: string): Promise<JobRow | undefined> {
  return db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
}

export async function jobStatus(db: DbOrTrx, jobId: string): Promise<JobStatus | undefined> {
  return (await db.selectFrom("jobs").select("status").where("id", "=", jobId).executeTakeFirst())?.status;
}

/** Moves a running job to `status` with progress never going down. False when the job is no longer running. */
export async function advanceJob(db: DbOrTrx, jobId: string, update: { status?: JobStatus; progress: number }): Promise<boolean> {
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
  const moved = result.numUpdatedRows > 0n;
  if (moved && update.status) countTransition(update.status);
  return moved;
}

export async function countAttempt(db: DbOrTrx, jobId: string): Promise<void> {
  await db.updateTable("jobs").set((eb) => ({ attempts: eb("attempts", "+", 1) })).where("id", "=", jobId).execute();
}

/** What inspection found, and the bytes it looked at (a retry must see the same). */
export async function recordInspection(
  db: DbOrTrx,
  jobId: string,
  values: { media: object; durationSeconds: number; resolvedStyle: object; source: { sha256: string; bytes: number } },
): Promise<void> {
  await db
    .updateTable("jobs")
    .set({
      media: JSON.stringify(values.media),
      duration_seconds: values.durationSeconds,
      resolved_style: JSON.stringify(values.resolvedStyle),
      source_sha256: values.source.sha256,
      source_bytes: values.source.bytes,
      updated_at: now,
    })
    .where("id", "=", jobId)
    .execute();
}

export type ReserveResult = ReserveOutcome | "not-running";

/** Reserves the job's seconds; idempotent across retries of the same job. */
export async function reserveForJob(db: Db, jobId: string, seconds: number): Promise<ReserveResult> {
  const result = await db.transaction().execute(async (trx): Promise<ReserveResult> => {
    const job = await trx.selectFrom("jobs").select(["account_id", "status"]).where("id", "=", jobId).forNoKeyUpdate().executeTakeFirstOrThrow();
    if (isTerminal(job.status)) return "not-running";
    const outcome = await reserveCredits(trx, job.account_id, jobId, seconds);
    if (outcome === "reserved") await trx.updateTable("jobs").set({ reserved_seconds: seconds, updated_at: now }).where("id", "=", jobId).execute();
    return outcome;
  });
  if (result === "reserved") captionMetrics().creditsReserved.add(seconds);
  return result;
}

export interface CompletedFiles {
  videoKey: string;
  srtKey: string;
  transcriptKey: string;
  expiresAt: Date;
}

/** Charges the reservation and marks the job completed, in one transaction. */
export async function completeJob(db: Db, jobId: string, files: CompletedFiles): Promise<"completed" | "not-running"> {
  const charged = await db.transaction().execute(async (trx) => {
    const job = await trx.selectFrom("jobs").select("status").where("id", "=", jobId).forNoKeyUpdate().executeTakeFirstOrThrow();
    if (isTerminal(job.status)) return undefined;
    const charged = await settleReservation(trx, jobId, "charge");
    await trx
      .updateTable("jobs")
      .set({
        status: "completed",
        progress: 100,
        billed_seconds: charged,
        reserved_seconds: 0,
        video_key: files.videoKey,
        srt_key: files.srtKey,
        transcript_key: files.transcriptKey,
        expires_at: files.expiresAt,
        finished_at: now,
        updated_at: now,
      })
      .where("id", "=", jobId)
      .execute();
    return charged;
  });
  if (charged === undefined) return "not-running";
  countTransition("completed");
  captionMetrics().creditsCharged.add(charged);
  return "completed";
}

/** Marks a running job failed and releases its reservation; no charge. */
export async function failJob(db: Db, jobId: string, code: JobErrorCode, message: string): Promise<boolean> {
  const failed = await db.transaction().execute(async (trx) => {
    const job = await trx.selectFrom("jobs").select("status").where("id", "=", jobId).forNoKeyUpdate().executeTakeFirstOrThrow();
    if (isTerminal(job.status)) return false;
    await settleReservation(trx, jobId, "release");
    await trx
      .updateTable("jobs")
      .set({ status: "failed", error_code: code, error_message: message, reserved_seconds: 0, finished_at: now, updated_at: now })
      .where("id", "=", jobId)
      .execute();
    return true;
  });
  if (failed) countTransition("failed");
  return failed;
}

/** An interrupted attempt (shutdown, crash) goes back to the queue; its reservation stays for the retry. */
export async function requeueJob(db: DbOrTrx, jobId: string): Promise<void> {
  const result = await db.updateTable("jobs").set({ status: "queued", updated_at: now }).where("id", "=", jobId).where("status", "in", ACTIVE_STATUSES).executeTakeFirst();
  if (result.numUpdatedRows > 0n) countTransition("queued");
}
