import { JobFailure } from "@caption/shared/errors/codes";

export interface DeadlinePolicy {
  /** Seconds every job gets, however short (PROCESSING_DEADLINE_BASE_SECONDS). */
  baseSeconds: number;
  /** Seconds per second of video on top (PROCESSING_DEADLINE_FACTOR). */
  perVideoSecond: number;
}

/** How long transcription and render of a video of `durationSeconds` may take together. */
export function processingDeadlineMs(durationSeconds: number, policy: DeadlinePolicy): number {
  return Math.round((policy.baseSeconds + policy.perVideoSecond * durationSeconds) * 1000);
}

/**
 * A signal that aborts with a PROCESSING_TIMEOUT JobFailure once the deadline for the video's
 * (billed) duration has passed: decoding, recognition and rendering of a file made to be slow stop
 * there instead of holding the worker. `clear` when the work is done.
 */
export function processingDeadline(durationSeconds: number, policy: DeadlinePolicy): { signal: AbortSignal; clear(): void } {
  const ms = processingDeadlineMs(durationSeconds, policy);
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new JobFailure("PROCESSING_TIMEOUT", `Processing a ${durationSeconds.toFixed(1)} s video took longer than its deadline of ${Math.round(ms / 1000)} s; no charge was made`));
  }, ms);
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
