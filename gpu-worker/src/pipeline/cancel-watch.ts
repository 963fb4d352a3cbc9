import type { JobStatus } from "@caption/shared/api/job";
import { realClock, type Clock } from "@caption/shared/runtime/clock";

/** How often the job's status is read: a cancel is acted on within this, well inside the 2 s the service promises. */
export const CANCEL_POLL_MS = 500;

/**
 * Aborts when the job is canceled through the API (`readStatus` reads its row's status, once every
 * CANCEL_POLL_MS; a slow read is not overlapped by the next), or when `parent` aborts.
 */
export function watchForCancel(
  readStatus: () => Promise<JobStatus | undefined>,
  jobId: string,
  parent: AbortSignal,
  clock: Pick<Clock, "every"> = realClock,
): { signal: AbortSignal; canceled(): boolean; stopNow(): never; stop(): void } {
  const controller = new AbortController();
  let canceled = false;
  let polling = false;
  const cancel = () => {
    if (canceled) return;
    canceled = true;
    controller.abort(new Error(`job ${jobId} was canceled`));
  };
  const stopPolling = clock.every(CANCEL_POLL_MS, () => {
    if (polling) return;
    polling = true;
    readStatus()
      .then((status) => {
        if (status === "canceled") cancel();
      })
      .catch(() => undefined)
      .finally(() => (polling = false));
  });
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
    stop: stopPolling,
  };
}
