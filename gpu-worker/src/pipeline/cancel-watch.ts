import type { Db } from "@caption/shared/db/database";
import { jobStatus } from "../db/job-repository.ts";

const POLL_MS = 500;

/**
 * Aborts when the job is canceled through the API (polled often enough to stop ffmpeg and the
 * recognizer within the 2 s the service promises), or when `parent` aborts.
 */
export function watchForCancel(
  db: Db,
  jobId: string,
  parent: AbortSignal,
): { signal: AbortSignal; canceled(): boolean; stopNow(): never; stop(): void } {
  const controller = new AbortController();
  let canceled = false;
  let polling = false;
  const cancel = () => {
    if (canceled) return;
    canceled = true;
    controller.abort(new Error(`job ${jobId} was canceled`));
  };
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    jobStatus(db, jobId)
      .then((status) => {
        if (status === "canceled") cancel();
      })
      .catch(() => undefined)
      .finally(() => (polling = false));
  }, POLL_MS);
  const signal = AbortSignal.any([parent, controller.signal]);
  return {
    signal,
    canceled: () => canceled,
    /** A transition found the job no longer running: only a cancel ends a job under a running attempt. */
    stopNow() {
      cancel();
      signal.throwIfAborted();
      throw new Error("unreachable: the signal was just aborted");
    },
    stop: () => clearInterval(timer),
  };
}
