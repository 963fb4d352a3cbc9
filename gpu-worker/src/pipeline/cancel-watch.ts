import type { JobStatus } from "@caption/shared/api/job";
import { realClock, type Clock } from "@caption/shared/time/clock";

/**
 * How often the job's status is read when no change was heard of: the fallback for a notification
 * lost (or a connection that cannot LISTEN, behind a PgBouncer in transaction mode). A cancel is
 * normally acted on when its notification arrives, well inside the second the service promises.
 */
export const CANCEL_FALLBACK_POLL_MS = 5000;

/** Tells a watcher that a job's row changed (the jobs trigger's NOTIFY), or that changes may have been missed. */
export interface JobChanges {
  /** Calls `onChange` for every change of `jobId` heard of, and after the LISTEN connection (re)connects. Returns the unsubscribe. */
  subscribe(jobId: string, onChange: () => void): () => void;
}

/**
 * Aborts when the job is canceled through the API, or when `parent` aborts. `readStatus` reads the
 * job row's status when `changes` says the row changed, and every CANCEL_FALLBACK_POLL_MS besides;
 * reads never overlap (a change heard during a read reads once more after it).
 */
export function watchForCancel(
  readStatus: () => Promise<JobStatus | undefined>,
  jobId: string,
  parent: AbortSignal,
  clock: Pick<Clock, "every"> = realClock,
  changes?: JobChanges,
): { signal: AbortSignal; canceled(): boolean; stopNow(): never; stop(): void } {
  const controller = new AbortController();
  let canceled = false;
  let reading = false;
  let readAgain = false;
  const cancel = () => {
    if (canceled) return;
    canceled = true;
    controller.abort(new Error(`job ${jobId} was canceled`));
  };
  const check = () => {
    if (canceled) return;
    if (reading) {
      readAgain = true;
      return;
    }
    reading = true;
    readAgain = false;
    readStatus()
      .then((status) => {
        if (status === "canceled") cancel();
      })
      .catch(() => undefined)
      .finally(() => {
        reading = false;
        if (readAgain) check();
      });
  };
  const stopPolling = clock.every(CANCEL_FALLBACK_POLL_MS, () => {
    // The fallback poll waits for a slow read rather than queueing behind it.
    if (!reading) check();
  });
  const unsubscribe = changes?.subscribe(jobId, check) ?? (() => undefined);
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
    stop() {
      stopPolling();
      unsubscribe();
    },
  };
}
