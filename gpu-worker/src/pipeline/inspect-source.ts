import { burnsCaptions } from "@caption/shared/api/output";
import { JobFailure } from "@caption/shared/errors/codes";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { recordInspection } from "../db/job-repository.ts";
import { probeMedia } from "../media/ffprobe.ts";
import type { MediaInfo } from "../media/media-info.ts";
import { assertBurnable, assertSupportedVideo } from "../media/video-limits.ts";
import { JOB_ATTRIBUTES } from "../telemetry/attempt-tracing.ts";
import type { AttemptContext } from "./attempt-context.ts";
import { reserveForJob } from "@caption/shared/jobs/job-lifecycle";
import type { SourceFingerprint } from "./source-fingerprint.ts";

export interface InspectedSource {
  media: MediaInfo;
  style: ResolvedStyle;
  /** What the job reserves now and is charged on completion: ceil(duration). */
  seconds: number;
}

/**
 * Inspects the local source video, checks it against the limits, resolves the job's style for its size,
 * records all that on the job, and reserves ceil(duration) seconds of credit before any heavy work.
 * Both kinds of job run it: a caption job on its download, a render job on its source's stored copy.
 */
export async function inspectAndReserve(ctx: AttemptContext, sourcePath: string, source: SourceFingerprint): Promise<InspectedSource> {
  const { deps, job, log } = ctx;
  const media = await probeMedia(sourcePath, { signal: ctx.signal, binary: deps.ffprobePath, timeoutMs: deps.limits.probeTimeoutMs });
  if (media.declaredDurationSeconds !== null && Math.abs(media.declaredDurationSeconds - media.durationSeconds) > 1) {
    log.warn({ declared_seconds: media.declaredDurationSeconds, streams_seconds: media.durationSeconds }, "container header disagrees with the streams; the streams count");
  }
  ctx.tracing.annotate({ [JOB_ATTRIBUTES.videoDuration]: media.durationSeconds });
  assertSupportedVideo(media);
  if (burnsCaptions(job.output_kind)) assertBurnable(media);
  if (media.durationSeconds > job.max_duration_seconds) {
    throw new JobFailure("DURATION_LIMIT_EXCEEDED", `the video is ${media.durationSeconds.toFixed(2)} s long, above max_duration_seconds ${job.max_duration_seconds}`);
  }
  const style = resolveStyle({ preset: job.preset, style: job.style, video: { width: media.width, height: media.height } });
  await recordInspection(deps.db, job.id, { media, durationSeconds: media.durationSeconds, resolvedStyle: style, source });
  const seconds = Math.ceil(media.durationSeconds);
  const reservation = await reserveForJob(deps.db, job.id, seconds);
  if (reservation === "insufficient") throw new JobFailure("INSUFFICIENT_CREDITS", `the video needs ${seconds} s of credit, more than is available`);
  if (reservation === "not-running") ctx.stopNow();
  return { media, style, seconds };
}
