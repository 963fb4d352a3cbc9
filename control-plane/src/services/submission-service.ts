import type { SubmissionRequest, SubmissionResponse } from "@caption/shared/api/submission";
import { MAX_VIDEO_SECONDS } from "@caption/shared/api/submission";
import { DEFAULT_SUBTITLE_PROFILE } from "@caption/shared/api/subtitle-profile";
import type { Principal } from "./authentication.ts";
import { createJobOnce, type JobCreationDeps } from "./job-creation.ts";
import type { LanguageSupport } from "./language-support.ts";
import { requestHash } from "./request-hash.ts";

export interface SubmissionDeps extends JobCreationDeps {
  languages: LanguageSupport;
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
  const creation = { accountId: principal.accountId, idempotencyKey, requestHash: () => requestHash(request) };
  return createJobOnce(deps, creation, async () => ({
    video_url: request.video_url,
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
