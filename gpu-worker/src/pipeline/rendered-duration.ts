import { JobFailure } from "@caption/shared/errors/codes";
import { probeMedia } from "../media/ffprobe.ts";

// Container timestamps are kept in milliseconds or finer.
const TIMESTAMP_SLACK_SECONDS = 0.001;

/**
 * The last line of defence for billing: the output of a job may run no longer than what it is billed
 * plus one frame. Every decode is cut at the inspected duration, so this never fails unless that cut
 * did not hold; then nothing is delivered and nothing charged.
 */
export function assertRenderedWithinBilled(renderedSeconds: number, billedSeconds: number, frameRate: number): void {
  const allowed = billedSeconds + 1 / frameRate + TIMESTAMP_SLACK_SECONDS;
  if (renderedSeconds > allowed) {
    throw new JobFailure("RENDER_FAILED", `The rendered video runs ${renderedSeconds.toFixed(3)} s, longer than the ${billedSeconds} s billed; it was not delivered`);
  }
}

/** Measures the rendered file like any other (its packets) and applies `assertRenderedWithinBilled`. */
export async function checkRenderedOutput(
  path: string,
  billed: { seconds: number; frameRate: number },
  options: { signal: AbortSignal; binary: string; timeoutMs: number },
): Promise<number> {
  const rendered = await probeMedia(path, options);
  assertRenderedWithinBilled(rendered.durationSeconds, billed.seconds, billed.frameRate);
  return rendered.durationSeconds;
}
