import type { Transaction } from "kysely";
import { monotonicFactory } from "ulid";
import type { SubmissionResponse } from "@caption/shared/api/submission";
import type { Db } from "@caption/shared/db/database";
import type { Database, NewJobRow } from "@caption/shared/db/tables";
import { sampledTraceparent } from "@caption/shared/telemetry/trace-context";
import { findLiveIdempotencyRecord, lockIdempotencyKey, saveIdempotencyRecord } from "../db/idempotency-repository.ts";
import { jobSubmitted, submitJob } from "@caption/shared/jobs/job-lifecycle";
import type { JobQueue } from "../queue/job-queue.ts";
import { assertPositiveBalance } from "./positive-balance.ts";
import { ServiceError } from "./service-error.ts";

// What every request that creates a job shares (POST /v1/subtitles, POST /v1/jobs/{id}/renders):
// job ids, the Idempotency-Key contract, the balance check, the row and its queue entry, the
// concurrency limit's refusal.

const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
// Raised at COMMIT by the jobs_concurrency_limit trigger (see its migration).
const CONCURRENCY_LIMIT_SQLSTATE = "CL429";
const nextUlid = monotonicFactory();

export interface JobCreationDeps {
  db: Db;
  queue: JobQueue;
  /** The API's public origin for this request: the base of the status URL and of the result links webhooks carry (without PUBLIC_BASE_URL). */
  baseUrl: string;
}

export interface JobCreation {
  accountId: string;
  idempotencyKey: string | undefined;
  /** Fingerprint of the request that a repeated key must match; only read with a key. */
  requestHash: () => string;
}

/** A new job's own columns: its id, account, status, trace context and base URL are the creation's. */
export type JobFields = Omit<NewJobRow, "id" | "account_id" | "status" | "traceparent" | "base_url">;

/**
 * Creates one job: `fields` checks what the request needs on the transaction (and throws the refusal) and
 * gives the job's columns; with a positive balance the row, its queue entry and the idempotency record
 * commit together. Concurrent duplicates of one idempotency key wait on its lock and replay; the same key
 * with another request is refused. The account's concurrency limit is enforced at COMMIT by a database trigger.
 */
export async function createJobOnce(
  deps: JobCreationDeps,
  creation: JobCreation,
  fields: (trx: Transaction<Database>) => Promise<JobFields>,
): Promise<SubmissionResponse> {
  const { accountId, idempotencyKey } = creation;
  const statusUrl = (jobId: string) => `${deps.baseUrl}/v1/jobs/${jobId}`;
  // Only idempotent requests need the fingerprint.
  const hash = idempotencyKey === undefined ? "" : creation.requestHash();
  // The worker's job span continues this request's trace, when it is sampled.
  const traceparent = sampledTraceparent();
  const response = await inTransaction(deps.db, async (trx): Promise<SubmissionResponse> => {
    if (idempotencyKey !== undefined) {
      await lockIdempotencyKey(trx, accountId, idempotencyKey);
      const previous = await findLiveIdempotencyRecord(trx, accountId, idempotencyKey);
      if (previous) {
        if (previous.request_hash !== hash) {
          throw new ServiceError("IDEMPOTENCY_KEY_MISMATCH", "this Idempotency-Key was used with a different request body or endpoint; use a new key for a new request");
        }
        return { id: previous.job_id, status: "queued", status_url: statusUrl(previous.job_id), replayed: true };
      }
    }
    const columns = await fields(trx);
    await assertPositiveBalance(trx, accountId, "submit jobs");
    const jobId = `job_${nextUlid()}`;
    const row = { ...columns, id: jobId, account_id: accountId, traceparent: traceparent ?? null, base_url: deps.baseUrl };
    await submitJob(trx, row, (queueTrx, payload) => deps.queue.enqueueCaptionJob(queueTrx, payload));
    if (idempotencyKey !== undefined) {
      await saveIdempotencyRecord(trx, { account_id: accountId, key: idempotencyKey, request_hash: hash, job_id: jobId, ttlSeconds: IDEMPOTENCY_TTL_SECONDS });
    }
    return { id: jobId, status: "queued", status_url: statusUrl(jobId), replayed: false };
  });
  if (!response.replayed) jobSubmitted();
  return response;
}

/** Runs the creating transaction; the concurrency trigger's refusal at COMMIT becomes CONCURRENCY_LIMIT_EXCEEDED. */
async function inTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  try {
    return await db.transaction().execute(work);
  } catch (error) {
    if ((error as { code?: unknown }).code === CONCURRENCY_LIMIT_SQLSTATE) {
      throw new ServiceError("CONCURRENCY_LIMIT_EXCEEDED", (error as Error).message, { retryAfterSeconds: 5 });
    }
    throw error;
  }
}
