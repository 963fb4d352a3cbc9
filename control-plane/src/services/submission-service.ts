import type { SubmissionRequest, SubmissionResponse } from "@caption/shared/api/submission";
import { MAX_VIDEO_SECONDS, sourceProblem } from "@caption/shared/api/submission";
import { DEFAULT_SUBTITLE_PROFILE } from "@caption/shared/api/subtitle-profile";
import type { Principal } from "./authentication.ts";
import { createJobOnce, type JobCreationDeps } from "./job-creation.ts";
import type { LanguageSupport } from "./language-support.ts";
import { requestHash } from "./request-hash.ts";
import { invalidRequest } from "./service-error.ts";
import { submittableUpload } from "./upload-service.ts";

export interface SubmissionDeps extends JobCreationDeps {
  languages: LanguageSupport;
}

export interface SubmitInput {
  principal: Principal;
  request: SubmissionRequest;
  idempotencyKey: string | undefined;
  now: Date;
}

/**
 * Creates a caption job: the job row, the idempotency record and the queue entry commit in one
 * transaction (job-creation.ts: replays, the balance, the concurrency limit). Its source is a URL the worker
 * downloads or a finished upload of the account, locked until the job commits so the sweep cannot take it.
 */
export async function submitJob(deps: SubmissionDeps, input: SubmitInput): Promise<SubmissionResponse> {
  const { principal, request, idempotencyKey } = input;
  const problem = sourceProblem(request);
  if (problem) throw invalidRequest(problem);
  if (request.language) await deps.languages.assertSupported(request.language);
  const creation = { accountId: principal.accountId, idempotencyKey, requestHash: () => requestHash(request) };
  return createJobOnce(deps, creation, async (trx) => ({
    video_url: request.video_url ?? null,
    upload_id: request.upload_id === undefined ? null : (await submittableUpload(trx, principal.accountId, request.upload_id, input.now)).id,
    preset: request.preset ?? "classic",
    language: request.language ?? null,
    style: JSON.stringify(request.style ?? {}),
    max_duration_seconds: request.max_duration_seconds ?? MAX_VIDEO_SECONDS,
    subtitle_profile: request.subtitles?.profile ?? DEFAULT_SUBTITLE_PROFILE,
    vocabulary: request.vocabulary && request.vocabulary.length > 0 ? JSON.stringify(request.vocabulary) : null,
    replacements: request.replacements && Object.keys(request.replacements).length > 0 ? JSON.stringify(request.replacements) : null,
    profanity: request.profanity ?? "keep",
    output_kind: request.output?.kind ?? "burned",
  }));
}
