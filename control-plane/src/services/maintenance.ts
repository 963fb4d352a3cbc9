import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import { deleteRateWindowsBefore } from "../db/api-key-repository.ts";
import { deleteExpiredIdempotencyRecords } from "../db/idempotency-repository.ts";
import { deleteProgressEventsBefore } from "../db/job-event-repository.ts";
import { deleteStalePreviewRows } from "../db/preview-repository.ts";
import { deleteDeliveriesBefore } from "../db/webhook-delivery-repository.ts";
import { sweepUploads, type UploadSweepDeps } from "./upload-sweep.ts";

const EVERY_MS = 60_000;
const RATE_WINDOWS_KEPT_MS = 5 * 60_000;
const SETTLED_DELIVERIES_KEPT_MS = 7 * 24 * 3600_000;
// A job's status events are its history and stay; its progress steps (one a second while it runs) go after a week.
const PROGRESS_EVENTS_KEPT_MS = 8 * 24 * 3600_000;
// A preview's picture is read by the request that waits for it, within seconds; one left over was drawn too late.
const PREVIEW_RESULTS_KEPT_MS = 60_000;

/**
 * Prunes rate-limit windows (previews' too), expired idempotency records, week-old webhook deliveries (stuck pending ones too)
 * and progress events, and previews nobody took, and deletes uploads past their time; safe to run in every API
 * process (the uploads' row locks keep the sweeps apart).
 */
export function startMaintenance(db: Db, logger: Logger, now: () => Date, uploads: UploadSweepDeps): { stop(): void } {
  const timer = setInterval(() => {
    const windowsBefore = new Date(now().getTime() - RATE_WINDOWS_KEPT_MS);
    const deliveriesBefore = new Date(now().getTime() - SETTLED_DELIVERIES_KEPT_MS);
    const progressBefore = new Date(now().getTime() - PROGRESS_EVENTS_KEPT_MS);
    Promise.all([
      deleteRateWindowsBefore(db, windowsBefore),
      deleteExpiredIdempotencyRecords(db),
      deleteDeliveriesBefore(db, deliveriesBefore),
      deleteProgressEventsBefore(db, progressBefore),
      deleteStalePreviewRows(db, new Date(now().getTime() - PREVIEW_RESULTS_KEPT_MS), windowsBefore),
    ]).catch((error: unknown) => logger.warn({ err: error }, "maintenance failed"));
    sweepUploads(uploads, now()).catch((error: unknown) => logger.warn({ err: error }, "upload sweep failed"));
  }, EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
