import path from "node:path";
import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import type { PreviewPayload } from "@caption/shared/jobs/catalog";
import type { WorkHandler } from "@caption/shared/jobs/job-handlers";
import { recordPreviewResult, type PreviewOutcome } from "../db/preview-repository.ts";
import { PreviewBackgrounds, PreviewRefused } from "../pipeline/preview-backgrounds.ts";
import { renderPreview } from "../pipeline/preview-render.ts";
import type { ResultStore } from "../storage/result-store.ts";

/** Previews one worker draws at once, beside its caption jobs: each is a short burst of painting (and a clip's ffmpeg). */
const PREVIEW_CONCURRENCY = 2;

export interface PreviewServiceDeps {
  db: Db;
  store: ResultStore;
  /** The worker's scratch space; previews keep their copies of background videos under it. */
  scratchDir: string;
  ffmpegPath: string;
  ffprobePath: string;
  logger: Logger;
}

/**
 * The preview queue's handler (woken by NOTIFY) until the worker stops taking work: each preview is
 * abandoned at its deadline (the request waiting for it has answered 503 by then), and its picture or
 * refusal goes to the waiting request through preview_results.
 */
export function previewHandler(deps: PreviewServiceDeps): WorkHandler<PreviewPayload> {
  const { db, logger } = deps;
  const dir = path.join(deps.scratchDir, "previews");
  const backgrounds = new PreviewBackgrounds({ db, store: deps.store, dir, ffmpegPath: deps.ffmpegPath, ffprobePath: deps.ffprobePath, logger });
  const previewDeps = { backgrounds, dir, ffmpegPath: deps.ffmpegPath, logger };
  return {
    options: { localConcurrency: PREVIEW_CONCURRENCY, batchSize: 1, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
    async handle(job) {
      const { preview_id: previewId, account_id: accountId, request, deadline_ms: deadline } = job.data;
      const log = logger.child({ preview_id: previewId, account_id: accountId });
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        log.info({ late_ms: -remaining }, "preview taken after its deadline; skipped");
        return;
      }
      const signal = AbortSignal.any([job.signal, AbortSignal.timeout(remaining)]);
      const started = performance.now();
      let outcome: PreviewOutcome;
      try {
        outcome = await renderPreview(previewDeps, accountId, request, signal);
      } catch (error) {
        if (signal.aborted) {
          log.warn({ ms: Math.round(performance.now() - started) }, "preview stopped at its deadline");
          return;
        }
        if (error instanceof PreviewRefused) outcome = { errorCode: error.code, errorMessage: error.message };
        else {
          log.error({ err: error }, "preview failed");
          outcome = { errorCode: "INTERNAL_ERROR", errorMessage: "internal error" };
        }
      }
      await recordPreviewResult(db, previewId, outcome);
      const result = "body" in outcome ? { bytes: outcome.body.length } : { refused: outcome.errorCode };
      log.info({ format: request.format, preset: request.preset, ms: Math.round(performance.now() - started), ...result }, "preview done");
    },
  };
}
