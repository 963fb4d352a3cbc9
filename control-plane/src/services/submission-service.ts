import type { SubmissionRequest, SubmissionResponse } from "@caption/shared/api/submission";
import { MAX_VIDEO_SECONDS } from "@caption/shared/api/submission";
import type { Db } from "@caption/shared/db/database";
import { insertJob } from "../db/job-repository.ts";
import type { JobQueue } from "../queue/job-queue.ts";
import type { Principal } from "./authentication.ts";
import { sampledTraceparent } from "@caption/shared/telemetry/trace-context";
import { assertPositiveBalance, createJobOnce, newJobId } from "./job-creation.ts";
import type { LanguageSupport } from "./language-support.ts";
import { requestHash } from "./request-hash.ts";

export interface SubmissionDeps {
  db: Db;
  queue: JobQueue;
  languages: LanguageSupport;
  statusUrl(jobId: string): string;
  /** The API's public origin for this request: the base of the result links webhooks carry (without PUBLIC_BASE_URL). */
  baseUrl: string;
}

export interface SubmitInput {
  principal: Principal;
  request: SubmissionRequest;
  idempotencyKey: string | undefined;
}

/**
 * Creates a caption job: the job row, the idempotency record and the queue entry commit in one
 * transaction (job-creation.ts: replays, the balance, the concurrency limit).
 */
export async function submitJob(deps: SubmissionDeps, input: SubmitInput): Promise<SubmissionResponse> {
  const { principal, request, idempotencyKey } = input;
  if (request.language) await deps.languages.assertSupported(request.language);
  // The worker's job span continues this request's trace, when it is sampled.
  const traceparent = sampledTraceparent();
  const creation = { accountId: principal.accountId, idempotencyKey, requestHash: () => requestHash(request), statusUrl: deps.statusUrl };
  return createJobOnce(deps.db, creation, async (trx) => {
    await assertPositiveBalance(trx, principal.accountId);
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
      traceparent: traceparent ?? null,
      started_at: null,
      finished_at: null,
      expires_at: null,
      files_deleted_at: null,
      base_url: deps.baseUrl,
    });
    await deps.queue.enqueueCaptionJob(trx, traceparent ? { job_id: jobId, traceparent } : { job_id: jobId });
    return jobId;
  });
}
