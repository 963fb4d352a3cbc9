import type { Db } from "@caption/shared/db/database";
import { jobStatus } from "./job-store.ts";

const POLL_MS = 500;

/**
 * Aborts when the job is canceled through the API (polled often enough to stop ffmpeg and the
 * recognizer within the 2 s the service promises), or when `parent` aborts.
 */
export function watchForCancel(db: Db, jobId: string, parent: AbortSignal): { signal: AbortSignal; canceled(): boolean; stop(): void } {
  const controller = new AbortController();
  let canceled = false;
  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    jobStatus(db, jobId)
      .then((status) => {
        if (status === "canceled" && !canceled) {
          canceled = true;
          controller.abort(new Error(`job ${jobId} was canceled`));
        }
      })
      .catch(() => undefined)
      .finally(() => (polling = false));
  }, POLL_MS);
  return { signal: AbortSignal.any([parent, controller.signal]), canceled: () => canceled, stop: () => clearInterval(timer) };
}
