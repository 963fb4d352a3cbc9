import type { EditedWord, RenderRequestOuter } from "@caption/shared/api/render-request";
import type { SubmissionResponse } from "@caption/shared/api/submission";
import type { DbOrTrx } from "@caption/shared/db/database";
import { findJob, type JobRecord } from "../db/job-repository.ts";
import type { Principal } from "./authentication.ts";
import { checkEditedWords, type WordShapeCheck } from "./edited-words.ts";
import { createJobOnce, type JobCreationDeps } from "./job-creation.ts";
import { requestHash } from "./request-hash.ts";
import { invalidRequest, notFound, ServiceError } from "./service-error.ts";

export interface RenderDeps extends JobCreationDeps {
  /** The schema's check of one edited word, applied with the word's time rules. */
  wordShape: WordShapeCheck;
}

export interface RenderInput {
  principal: Principal;
  sourceJobId: string;
  /** The body, valid but for its words, which are checked here (their times need the source's duration). */
  request: RenderRequestOuter;
  idempotencyKey: string | undefined;
  now: Date;
}

/**
 * Creates a render job: the source job's stored video rendered again with other words, preset or
 * style, skipping download and transcription. Omitted fields are the source's. The source must be the
 * account's (else 404) and completed with its files still kept (else 409 SOURCE_NOT_RENDERABLE); its
 * row stays locked until the new job commits, so its files cannot expire in between (the expiry waits
 * for unfinished render jobs).
 */
export async function requestRender(deps: RenderDeps, input: RenderInput): Promise<SubmissionResponse> {
  const { principal, sourceJobId, request } = input;
  const creation = {
    accountId: principal.accountId,
    idempotencyKey: input.idempotencyKey,
    // The endpoint and the source are part of the request: a key used to submit, or to render another
    // job, is a mismatch here, never a replay (a submission body cannot hold these fields).
    requestHash: () => requestHash({ endpoint: "POST /v1/jobs/{id}/renders", source_job_id: sourceJobId, body: request }),
  };
  return createJobOnce(deps, creation, async (trx) => {
    const source = await findJob(trx, principal.accountId, sourceJobId, { lock: true });
    if (!source) throw notFound("job");
    const duration = renderableDuration(source, input.now);
    let words: EditedWord[] | undefined;
    if (request.words) {
      const checked = checkEditedWords(request.words, duration, deps.wordShape);
      if ("problem" in checked) throw invalidRequest(checked.problem);
      words = checked.words;
    }
    return {
      kind: "render",
      source_job_id: source.id,
      words: words ? JSON.stringify(words) : null,
      video_url: source.video_url,
      preset: request.preset ?? source.preset,
      language: source.language,
      style: JSON.stringify(request.style ?? source.style),
      max_duration_seconds: source.max_duration_seconds,
      subtitle_profile: request.subtitles?.profile ?? source.subtitle_profile,
      output_kind: request.output?.kind ?? "burned",
    };
  });
}

/** 404 unless `jobId` is one of the account's jobs: checked before a render body is read at all. */
export async function requireOwnJob(db: DbOrTrx, accountId: string, jobId: string): Promise<void> {
  if (!(await findJob(db, accountId, jobId))) throw notFound("job");
}

/** The source's duration when it can be rendered again now; otherwise 409 SOURCE_NOT_RENDERABLE saying why. */
function renderableDuration(source: JobRecord, now: Date): number {
  const refuse = (why: string) => new ServiceError("SOURCE_NOT_RENDERABLE", `job ${source.id} cannot be rendered again: ${why}`);
  if (source.status !== "completed") throw refuse(`it is ${source.status}; only a completed job can be`);
  if (source.files_deleted_at !== null || source.expires_at === null || new Date(source.expires_at) <= now) {
    throw refuse("its files have expired (they are kept 24 hours); submit the video again");
  }
  if (source.source_video_key === null || source.duration_seconds === null) throw refuse("it was completed before this service kept source videos; submit the video again");
  return source.duration_seconds;
}
