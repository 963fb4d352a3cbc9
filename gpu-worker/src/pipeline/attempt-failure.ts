import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import { JobFailure } from "@caption/shared/errors/codes";
import type { ResultStore } from "../storage/result-store.ts";
import { failJob, requeueJob } from "@caption/shared/jobs/job-lifecycle";

export interface FailedAttempt {
  /** The job was canceled through the API while the attempt ran. */
  canceled: boolean;
  /** performance.now() when the attempt heard of the cancel. */
  canceledAt?: number;
  /** The worker is shutting down. */
  shutdown: boolean;
  /** The queue will not retry this attempt. */
  finalAttempt: boolean;
  /** Some of the job's outputs were stored before the failure. */
  storedFiles: boolean;
  log: Logger;
  /** Retries a database write while the database is unavailable. */
  persist: <T>(write: () => Promise<T>) => Promise<T>;
}

/**
 * Ends an attempt that threw: a cancel leaves nothing behind, a job-level failure fails the job, an
 * interruption (shutdown, or an unexpected error with retries left) requeues it and rethrows so the
 * queue retries, and an unexpected error on the last attempt fails the job. No failure is charged.
 */
export async function endFailedAttempt(deps: { db: Db; store: ResultStore }, jobId: string, error: unknown, attempt: FailedAttempt): Promise<void> {
  // Each outcome logs its line before touching the database, which may be what ended the attempt;
  // the database writes then wait for it to come back (persist), so the job's row is right again
  // as soon as it does.
  const { log, persist } = attempt;
  if (attempt.canceled) {
    // The API already released the reservation and marked the job; leave nothing behind.
    // Every stage has settled, and with it every process it started: how long the cancel took to stop the work.
    const stopping = attempt.canceledAt === undefined ? {} : { stopping_ms: Math.round(performance.now() - attempt.canceledAt) };
    log.info(stopping, "job canceled; work stopped");
    if (attempt.storedFiles) await deps.store.deleteJob(jobId);
    return;
  }
  if (error instanceof JobFailure) {
    log.warn({ code: error.code, err: error.cause ?? error }, "job failed");
    if (attempt.storedFiles) await deps.store.deleteJob(jobId);
    await persist(() => failJob(deps.db, jobId, error.code, error.message));
    return;
  }
  if (attempt.shutdown || !attempt.finalAttempt) {
    log.warn({ err: error, shutdown: attempt.shutdown }, "attempt interrupted; the job will be retried");
    await persist(() => requeueJob(deps.db, jobId));
    throw error;
  }
  log.error({ err: error }, "job failed on its last attempt");
  if (attempt.storedFiles) await deps.store.deleteJob(jobId);
  await persist(() => failJob(deps.db, jobId, "INTERNAL_ERROR", "the job could not be processed; no charge was made"));
}
