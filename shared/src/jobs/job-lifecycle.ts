import { isTerminal, type JobStatus } from "../api/job.ts";
import { reserveCredits, settleReservation, type ReserveOutcome } from "../db/credit-ledger.ts";
import type { Db, DbOrTrx } from "../db/database.ts";
import {
  advanceRunningJob,
  claimExpiredJobs,
  countAttempt,
  forgetResultFiles,
  insertJob,
  lockAccountJob,
  lockJob,
  markCanceled,
  markCompleted,
  markFailed,
  recordReservation,
  requeueRunningJob,
  sourcesOfActiveRenders,
  type CompletedFiles,
} from "../db/job-lifecycle-repository.ts";
import type { JobRow, NewJobRow } from "../db/tables.ts";
import type { JobErrorCode } from "../errors/codes.ts";
import { captionMetrics, countTransition } from "../telemetry/caption-metrics.ts";
import type { CaptionJobPayload } from "./catalog.ts";

// Every transition of a job and every ledger call it makes, for both processes: the API submits and
// cancels, the worker claims, reserves, reports progress, charges, fails, hands back and expires.
// Every transition checks the row under lock, so a cancel that lands mid-stage wins: a canceled job is
// never moved on, reserved, charged or failed. Metrics are recorded after a change commits, so they
// count what the database holds.

export type { CompletedFiles };

/**
 * Submit: inserts a queued job and its queue entry on the caller's transaction (so both commit or
 * neither). Count it with `jobSubmitted` once that transaction has committed.
 */
export async function submitJob(
  trx: DbOrTrx,
  row: Omit<NewJobRow, "status">,
  enqueue: (trx: DbOrTrx, payload: CaptionJobPayload) => Promise<void>,
): Promise<void> {
  await insertJob(trx, { ...row, status: "queued" });
  await enqueue(trx, row.traceparent ? { job_id: row.id, traceparent: row.traceparent } : { job_id: row.id });
}

/** A submission committed (a replayed one is not counted). */
export const jobSubmitted = (): void => countTransition("queued");

/** Claim: an attempt takes the job, and the attempt is counted. */
export async function claimJob(db: DbOrTrx, jobId: string): Promise<void> {
  await countAttempt(db, jobId);
}

/** Progress: moves a running job to `status` with progress never going down. False when the job is no longer running. */
export async function advanceJob(db: Db, jobId: string, update: { status?: JobStatus; progress: number }): Promise<boolean> {
  const moved = await advanceRunningJob(db, jobId, update);
  if (moved && update.status) countTransition(update.status);
  return moved;
}

export type ReserveResult = ReserveOutcome | "not-running";

/** Reserve: the job's seconds from its account's balance; idempotent across retries of the same job. */
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

/** Charge: settles the reservation as a charge and marks the job completed, in one transaction. */
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

/** Fail: marks a running job failed and releases its reservation; no charge. */
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

/** Hand back: an interrupted attempt (shutdown, crash) returns the job to the queue; its reservation stays for the retry. */
export async function requeueJob(db: Db, jobId: string): Promise<void> {
  if (await requeueRunningJob(db, jobId)) countTransition("queued");
}

/**
 * Cancel: an unfinished job of the account is canceled and its reservation released; a terminal job
 * keeps its state. Undefined when the account has no such job.
 */
export async function cancelJob(db: Db, accountId: string, jobId: string): Promise<Pick<JobRow, "id" | "status"> | undefined> {
  let canceledNow = false;
  const result = await db.transaction().execute(async (trx) => {
    const row = await lockAccountJob(trx, accountId, jobId);
    if (!row || isTerminal(row.status)) return row;
    canceledNow = true;
    await settleReservation(trx, jobId, "release");
    return markCanceled(trx, jobId);
  });
  if (canceledNow) countTransition("canceled");
  return result;
}

/**
 * Expire: one batch of up to `limit` jobs past `expires_at` whose files are not yet deleted, claimed with
 * SKIP LOCKED (so concurrent runs share the work); a job that an unfinished render job reads keeps its
 * files until a later batch. `deleteFiles` runs inside the transaction before the keys are forgotten.
 * `afterClaim` lets a test commit a render request inside the window between the claim and its check.
 */
export async function expireJobFiles(
  db: Db,
  limit: number,
  deleteFiles: (jobId: string) => Promise<void>,
  afterClaim?: (claimed: readonly string[]) => Promise<void>,
): Promise<{ claimed: number; deleted: number }> {
  return db.transaction().execute(async (trx) => {
    const claimed = await claimExpiredJobs(trx, limit);
    await afterClaim?.(claimed);
    // A render job reads its source's files: they go once it has finished (a later run).
    const held = await sourcesOfActiveRenders(trx, claimed);
    const jobIds = claimed.filter((jobId) => !held.has(jobId));
    for (const jobId of jobIds) await deleteFiles(jobId);
    await forgetResultFiles(trx, jobIds);
    return { claimed: claimed.length, deleted: jobIds.length };
  });
}
