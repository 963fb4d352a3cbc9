import { isTerminal, type JobStatus } from "@caption/shared/api/job";
import { reserveCredits, settleReservation, type ReserveOutcome } from "@caption/shared/db/credit-ledger";
import type { Db } from "@caption/shared/db/database";
import type { JobErrorCode } from "@caption/shared/errors/codes";
import { captionMetrics, countTransition } from "@caption/shared/telemetry/caption-metrics";
import { advanceRunningJob, lockJob, markCompleted, markFailed, recordReservation, requeueRunningJob, type CompletedFiles } from "../db/job-repository.ts";

// How an attempt moves its job on. Every transition checks the row under lock, so a cancel that
// lands mid-stage wins: a canceled job is never moved on, reserved, charged or failed.
// Metrics are recorded after a change commits, so they count what the database holds.

/** Moves a running job to `status` with progress never going down. False when the job is no longer running. */
export async function advanceJob(db: Db, jobId: string, update: { status?: JobStatus; progress: number }): Promise<boolean> {
  const moved = await advanceRunningJob(db, jobId, update);
  if (moved && update.status) countTransition(update.status);
  return moved;
}

export type ReserveResult = ReserveOutcome | "not-running";

/** Reserves the job's seconds; idempotent across retries of the same job. */
export async function reserveForJob(db: Db, jobId: string, seconds: number): Promise<ReserveResult> {
  const result = await db.transaction().execute(async (trx): Promise<ReserveResult> => {
    const job = await lockJob(trx, jobId);
    if (isTerminal(job.status)) return "not-running";
    const outcome = await reserveCredits(trx, job.account_id, jobId, seconds);
    if (outcome === "reserved") await recordReservation(trx, jobId, seconds);
    return outcome;
  });
  if (result === "reserved") captionMetrics().creditsReserved.add(seconds);
  return result;
}

/** Charges the reservation and marks the job completed, in one transaction. */
export async function completeJob(db: Db, jobId: string, files: CompletedFiles): Promise<"completed" | "not-running"> {
  const charged = await db.transaction().execute(async (trx) => {
    if (isTerminal((await lockJob(trx, jobId)).status)) return undefined;
    const charged = await settleReservation(trx, jobId, "charge");
    await markCompleted(trx, jobId, charged, files);
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
    if (isTerminal((await lockJob(trx, jobId)).status)) return false;
    await settleReservation(trx, jobId, "release");
    await markFailed(trx, jobId, code, message);
    return true;
  });
  if (failed) countTransition("failed");
  return failed;
}

/** An interrupted attempt (shutdown, crash) goes back to the queue; its reservation stays for the retry. */
export async function requeueJob(db: Db, jobId: string): Promise<void> {
  if (await requeueRunningJob(db, jobId)) countTransition("queued");
}
