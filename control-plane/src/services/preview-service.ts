import { monotonicFactory } from "ulid";
import { backgroundSourceProblem, type PreviewRequest } from "@caption/shared/api/preview";
import type { BackgroundVideoFacts } from "@caption/shared/preview/background-rules";
import { PREVIEW_RESULTS_CHANNEL } from "@caption/shared/jobs/catalog";
import type { Db } from "@caption/shared/db/database";
import { API_ERROR_CODES, type ApiErrorCode } from "@caption/shared/errors/codes";
import { findJob } from "../db/job-repository.ts";
import type { NotificationListener } from "@caption/shared/db/notification-listener";
import { countPreviewRequest, liveWorkerCount, takePreviewResult, type PreviewResultRow } from "../db/preview-repository.ts";
import type { JobQueue } from "../queue/job-queue.ts";
import type { Principal } from "./authentication.ts";
import { LIVE_WITHIN_SECONDS } from "./language-support.ts";
import { checkPreviewRequest } from "./preview-checks.ts";
import { invalidRequest, notFound, ServiceError } from "./service-error.ts";
import { readableUpload } from "./upload-service.ts";

const nextUlid = monotonicFactory();

export interface PreviewLimits {
  perMinute: number;
  stillMs: number;
  clipMs: number;
}

export interface PreviewServiceDeps {
  db: Db;
  queue: JobQueue;
  listener: NotificationListener;
  limits: PreviewLimits;
  /** The clock of rate windows and of file expiry. */
  now: () => Date;
}

/**
 * A preview, drawn by a worker while the request waits: the API process has no painter (the control plane's
 * image holds no Skia), so the request goes on the preview queue, a worker draws it and writes it to
 * preview_results, and its NOTIFY wakes this request, which takes the row. Past the deadline (2 s for a
 * still, 10 s for a clip) the answer is 503 with Retry-After, never a hung request; with no worker running
 * it is 503 at once. Nothing is charged or reserved.
 */
export async function requestPreview(deps: PreviewServiceDeps, principal: Principal, request: PreviewRequest): Promise<{ contentType: string; body: Buffer }> {
  await countAgainstPreviewRate(deps, principal);
  const background = request.background && (await backgroundFacts(deps, principal.accountId, request.background));
  checkPreviewRequest(request, background);
  if ((await liveWorkerCount(deps.db, LIVE_WITHIN_SECONDS)) === 0) {
    throw new ServiceError("SERVICE_UNAVAILABLE", "no worker is running to draw previews; try again once one is", { retryAfterSeconds: 10 });
  }
  const previewId = `pv_${nextUlid()}`;
  const waitMs = request.format === "mp4" ? deps.limits.clipMs : deps.limits.stillMs;
  // Listening before the preview is queued, so its answer cannot come unheard.
  const answer = waitForPreview(deps, previewId, waitMs);
  try {
    await deps.queue.enqueuePreview({ preview_id: previewId, account_id: principal.accountId, request, deadline_ms: Date.now() + waitMs });
  } catch (error) {
    answer.cancel();
    throw error;
  }
  const row = await answer.result;
  if (row === null) {
    throw new ServiceError("SERVICE_UNAVAILABLE", `the preview was not drawn within ${waitMs / 1000} s; the workers are busy, try again`, { retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) });
  }
  if (row.body === null || row.content_type === null) throw new ServiceError(workerCode(row.error_code), row.error_message ?? "the preview could not be drawn");
  return { contentType: row.content_type, body: row.body };
}

async function countAgainstPreviewRate(deps: PreviewServiceDeps, principal: Principal): Promise<void> {
  const now = deps.now();
  const window = await countPreviewRequest(deps.db, principal.apiKeyId, now);
  if (window.count > deps.limits.perMinute) {
    const retryAfterSeconds = Math.max(1, Math.ceil((window.window_start.getTime() + 60_000 - now.getTime()) / 1000));
    throw new ServiceError("RATE_LIMITED", `preview rate limit of ${deps.limits.perMinute} per minute exceeded`, { retryAfterSeconds });
  }
}

/**
 * The background's video, when the API can know it. A job: 404 unless it is the account's, 409 unless it is completed
 * with its files kept. An upload: the rules of a submission's (404, 409 unfinished, 410 expired); its video is
 * probed by the worker, which checks the rest.
 */
async function backgroundFacts(deps: PreviewServiceDeps, accountId: string, source: NonNullable<PreviewRequest["background"]>): Promise<BackgroundVideoFacts | undefined> {
  const problem = backgroundSourceProblem(source);
  if (problem) throw invalidRequest(problem);
  if (source.upload_id !== undefined) {
    await readableUpload(deps.db, accountId, source.upload_id, deps.now(), "background.upload_id: upload");
    return undefined;
  }
  const jobId = source.job_id!;
  const job = await findJob(deps.db, accountId, jobId);
  if (!job) throw notFound("background.job_id: job");
  const media = job.media as { width?: unknown; height?: unknown; frameRate?: unknown } | null;
  const kept = job.files_deleted_at === null && job.expires_at !== null && new Date(job.expires_at) > deps.now() && job.source_video_key !== null;
  if (job.status !== "completed" || !kept || job.duration_seconds === null || typeof media?.width !== "number" || typeof media.height !== "number" || typeof media.frameRate !== "number") {
    const why = job.status !== "completed" ? `it is ${job.status}; only a completed job can be` : "its files have expired (they are kept 24 hours)";
    throw new ServiceError("SOURCE_NOT_RENDERABLE", `background.job_id: job ${jobId} cannot be a preview's background: ${why}`);
  }
  return { kind: "job", id: jobId, width: media.width, height: media.height, durationSeconds: job.duration_seconds, frameRate: media.frameRate };
}

/** A worker's refusal as an API error (a code it does not know is an internal error). */
const workerCode = (code: string | null): ApiErrorCode => ((API_ERROR_CODES as readonly string[]).includes(code ?? "") ? (code as ApiErrorCode) : "INTERNAL_ERROR");

/**
 * The preview's row once a worker has written it (its NOTIFY, or a reconnected listener, says to look), or
 * null after `waitMs`; the row is looked for a last time then.
 */
function waitForPreview(deps: PreviewServiceDeps, previewId: string, waitMs: number): { result: Promise<PreviewResultRow | null>; cancel(): void } {
  let settle: (row: PreviewResultRow | null) => void = () => undefined;
  const result = new Promise<PreviewResultRow | null>((resolve) => (settle = resolve));
  let done = false;
  const finish = (row: PreviewResultRow | null) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    unsubscribe();
    unsubscribeConnected();
    settle(row);
  };
  const look = (last: boolean) =>
    void takePreviewResult(deps.db, previewId).then(
      (row) => (row ? finish(row) : last ? finish(null) : undefined),
      () => (last ? finish(null) : undefined),
    );
  const unsubscribe = deps.listener.subscribe(PREVIEW_RESULTS_CHANNEL, previewId, () => look(false));
  const unsubscribeConnected = deps.listener.onConnected(() => look(false));
  const timer = setTimeout(() => look(true), waitMs);
  return { result, cancel: () => finish(null) };
}
