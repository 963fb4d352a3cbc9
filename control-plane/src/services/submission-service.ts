import { context, propagation } from "@opentelemetry/api";
import { monotonicFactory } from "ulid";
import type { SubmissionRequest, SubmissionResponse } from "@caption/shared/api/submission";
import { MAX_VIDEO_SECONDS } from "@caption/shared/api/submission";
import { accountBalance } from "@caption/shared/db/credit-ledger";
import type { Transaction } from "kysely";
import type { Db } from "@caption/shared/db/database";
import type { Database } from "@caption/shared/db/tables";
import { countTransition } from "@caption/shared/telemetry/caption-metrics";
import { findLiveIdempotencyRecord, lockIdempotencyKey, saveIdempotencyRecord } from "../db/idempotency-repository.ts";
import { insertJob } from "../db/job-repository.ts";
import type { JobQueue } from "../queue/job-queue.ts";
import type { Principal } from "./authentication.ts";
import type { LanguageSupport } from "./language-support.ts";
import { requestHash } from "./request-hash.ts";
import { ServiceError } from "./service-error.ts";

const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
// Raised at COMMIT by the jobs_concurrency_limit trigger (see its migration).
const CONCURRENCY_LIMIT_SQLSTATE = "CL429";
const nextUlid = monotonicFactory();
export const newJobId = (): string => `job_${nextUlid()}`;
const statusUrl = (baseUrl: string, jobId: string) => `${baseUrl}/v1/jobs/${jobId}`;

export interface SubmissionDeps {
  db: Db;
  queue: JobQueue;
  languages: LanguageSupport;
  /** The API's public origin for this request: status_url's base, and that of the result links webhooks carry. */
  baseUrl: string;
}

export interface SubmitInput {
  principal: Principal;
  request: SubmissionRequest;
  idempotencyKey: string | undefined;
}

/**
 * Creates a job: the job row, the idempotency record and the queue entry commit in one
 * transaction. Concurrent duplicates of one idempotency key wait on its lock and replay. The
 * account's concurrency limit is enforced at COMMIT by a database trigger.
 */
export async function submitJob(deps: SubmissionDeps, input: SubmitInput): Promise<SubmissionResponse> {
  const { principal, request, idempotencyKey } = input;
  if (request.language) await deps.languages.assertSupported(request.language);
  // Only idempotent submissions need the body fingerprint.
  const hash = idempotencyKey === undefined ? "" : requestHash(request);
  // The worker's job span continues this request's trace (nothing is injected when tracing is off).
  const trace: { traceparent?: string } = {};
  propagation.inject(context.active(), trace);

  const response = await inTransaction(deps.db, async (trx): Promise<SubmissionResponse> => {
    if (idempotencyKey !== undefined) {
      await lockIdempotencyKey(trx, principal.accountId, idempotencyKey);
      const previous = await findLiveIdempotencyRecord(trx, principal.accountId, idempotencyKey);
      if (previous) {
        if (previous.request_hash !== hash) {
          throw new ServiceError("IDEMPOTENCY_KEY_MISMATCH", "this Idempotency-Key was used with a different request body; use a new key for a new request");
        }
        return { id: previous.job_id, status: "queued", status_url: statusUrl(deps.baseUrl, previous.job_id), replayed: true };
      }
    }

    // A snapshot suffices for "balance positive": the worker re-checks under lock when it reserves.
    const { available } = await accountBalance(trx, principal.accountId);
    if (available <= 0) throw new ServiceError("INSUFFICIENT_CREDITS", "no prepaid seconds are available; add credit to submit jobs");

    const jobId = newJobId();
    await insertJob(trx, {
      id: jobId,
      account_id: principal.accountId,
      status: "queued",
      video_url: request.video_url,
      preset: request.preset ?? "classic",
      language: request.language ?? null,
      style: JSON.stringify(request.style ?? {}),
      max_duration_seconds: request.max_duration_seconds ?? MAX_VIDEO_SECONDS,
      media: null,
      resolved_style: null,
      duration_seconds: null,
      error_code: null,
      error_message: null,
      video_key: null,
      srt_key: null,
      transcript_key: null,
      traceparent: trace.traceparent ?? null,
      started_at: null,
      finished_at: null,
      expires_at: null,
      files_deleted_at: null,
      base_url: deps.baseUrl,
    });
    if (idempotencyKey !== undefined) {
      await saveIdempotencyRecord(trx, { account_id: principal.accountId, key: idempotencyKey, request_hash: hash, job_id: jobId, ttlSeconds: IDEMPOTENCY_TTL_SECONDS });
    }
    await deps.queue.enqueueCaptionJob(trx, trace.traceparent ? { job_id: jobId, traceparent: trace.traceparent } : { job_id: jobId });

    return { id: jobId, status: "queued", status_url: statusUrl(deps.baseUrl, jobId), replayed: false };
  });
  if (!response.replayed) countTransition("queued");
  return response;
}

/** Runs the submission transaction; the concurrency trigger's refusal at COMMIT becomes CONCURRENCY_LIMIT_EXCEEDED. */
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
