import { stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { burnsCaptions, makesOverlay } from "@caption/shared/api/output";
import type { QualitySummary } from "@caption/shared/api/quality-report";
import type { Transcript } from "@caption/shared/api/transcript";
import { VIDEO_FILES } from "@caption/shared/storage/result-files";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { jobStatus } from "../db/job-repository.ts";
import type { MediaInfo } from "../media/media-info.ts";
import { renderCaptionedVideo, type CaptionCues } from "../render/render-video.ts";
import { writeUncaptionedMp4 } from "../render/uncaptioned-video.ts";
import { RESULT_FILES, resultKey, SOURCE_VIDEO_FILE } from "../storage/result-store.ts";
import { subtitleFiles, type QualityReportInput } from "../subtitles/subtitle-files.ts";
import { recordRender } from "../telemetry/attempt-tracing.ts";
import type { AttemptContext } from "./attempt-context.ts";
import { completeJob } from "@caption/shared/jobs/job-lifecycle";
import { TAKEN_FRAMES_FILE, takePictures } from "./picture-stage.ts";
import type { CaptionedVideo, LocalResultFile } from "./rendered-files.ts";
import { checkRenderedOutput } from "./rendered-duration.ts";

// The stages every job ends with, whatever gave it its words: render the captions into the video,
// store the video, the subtitle files, the transcript and the source, then charge and complete.

const RETENTION_MS = 24 * 3600 * 1000;

/**
 * Draws the cues in the style onto the source and encodes what the job's output kind asks for into the
 * scratch folder: the captioned MP4, the transparent overlay (WebM and MOV, with the source copied as an
 * uncaptioned MP4 when nothing is burned), or both; the poster and the preview strip, their frames chosen and
 * (with a burned video) taken by the render itself; then measures them. The cues are all known, or arrive
 * while recognition runs (`cueStream`).
 */
export async function renderCaptions(
  ctx: AttemptContext,
  input: CaptionCues & {
    sourcePath: string;
    media: MediaInfo;
    style: ResolvedStyle;
    seconds: number;
    work: AbortSignal;
    onProgress: (fraction: number) => void;
  },
): Promise<CaptionedVideo> {
  const { deps, dir, log } = ctx;
  const { media, style, work } = input;
  return ctx.tracing.stage("render", async () => {
    const started = performance.now();
    const local = (file: LocalResultFile) => path.join(dir, file.name);
    const kind = ctx.job.output_kind;
    const burned = burnsCaptions(kind) ? RESULT_FILES.video : VIDEO_FILES.uncaptioned;
    const overlayFiles = makesOverlay(kind) ? [VIDEO_FILES.overlayWebm, VIDEO_FILES.overlayMov] : [];
    const captions: CaptionCues = input.cueStream === undefined ? { cues: input.cues } : { cueStream: input.cueStream };
    const render = await renderCaptionedVideo({
      ...captions,
      inputPath: input.sourcePath,
      outputPath: burnsCaptions(kind) ? local(burned) : undefined,
      overlay: makesOverlay(kind) ? { webmPath: local(VIDEO_FILES.overlayWebm), movPath: local(VIDEO_FILES.overlayMov) } : undefined,
      style,
      media,
      encoder: deps.encoder,
      decoder: deps.decoder,
      signal: work,
      logger: log,
      ffmpegBinary: deps.ffmpegPath,
      onProgress: input.onProgress,
      pictures: { framesPath: path.join(dir, TAKEN_FRAMES_FILE) },
    });
    if (!burnsCaptions(kind)) {
      const uncaptioned = { inputPath: input.sourcePath, outputPath: local(burned), media, encoder: deps.encoder };
      await writeUncaptionedMp4({ ...uncaptioned, signal: work, logger: log, ffmpegBinary: deps.ffmpegPath });
    }
    recordRender(deps.encoder.encoder, Math.round(media.durationSeconds * media.frameRate), (performance.now() - started) / 1000);
    const files = [burned, ...overlayFiles];
    // The pictures are made while the outputs are measured: small work each, on both cores.
    const [pictures, ...rendered] = await Promise.all([
      takePictures(ctx, { media, files, pictures: render.pictures! }, work),
      ...files.map((file) =>
        checkRenderedOutput(
          local(file),
          { seconds: input.seconds, frameRate: media.frameRate },
          { signal: work, binary: deps.ffprobePath, timeoutMs: deps.limits.probeTimeoutMs },
        ),
      ),
    ]);
    return { framesDrawn: render.framesDrawn, renderedSeconds: Math.max(0, ...rendered), files, pictures };
  });
}

/**
 * Lays the job's words out by its subtitle profile
 * (the picture follows the preset instead), writes the SRT, WebVTT, ASS, quality report and transcript; then
 * stores them, the video's files and the source video under the job's key prefix (the source stays so the job
 * can be rendered again). Returns the report's summary and the pictures' files.
 */
export async function storeResults(
  ctx: AttemptContext,
  input: {
    sourcePath: string;
    media: MediaInfo;
    style: ResolvedStyle;
    video: CaptionedVideo;
    transcript: Transcript;
    quality: QualityInput;
    progress: number;
    /**
     * Where the store already holds the source's bytes (a render job's source job, an uploaded video): they are
     * copied within the store rather than uploaded again.
     */
    storedSource?: { jobId: string; name: string };
  },
): Promise<{ quality: QualitySummary; pictures: LocalResultFile[]; storedBytes: number }> {
  const { deps, dir, job, log, signal } = ctx;
  return ctx.tracing.stage("store", async () => {
    await ctx.progress.report(input.progress);
    const { media, transcript } = input;
    const { pictures } = input.video;
    const subtitles = subtitleFiles({
      jobId: job.id,
      profile: job.subtitle_profile,
      frameRate: media.frameRate,
      durationSeconds: media.durationSeconds,
      style: input.style,
      engine: { name: transcript.engine, model: transcript.model },
      ...input.quality,
    });
    const { report } = subtitles;
    log.info({ ...report.summary, layout_ms: Math.round(subtitles.layoutMs), report_ms: Math.round(subtitles.reportMs) }, "subtitles laid out");
    await writeFile(path.join(dir, RESULT_FILES.quality.name), JSON.stringify(report), "utf8");
    await writeFile(path.join(dir, RESULT_FILES.srt.name), subtitles.srt, "utf8");
    await writeFile(path.join(dir, RESULT_FILES.vtt.name), subtitles.vtt, "utf8");
    await writeFile(path.join(dir, RESULT_FILES.ass.name), subtitles.ass, "utf8");
    await writeFile(path.join(dir, RESULT_FILES.transcript.name), JSON.stringify(transcript), "utf8");
    // The burned video is one of the video's files, when there is one.
    const written = [...Object.values(RESULT_FILES).filter((file) => file !== RESULT_FILES.video), ...input.video.files, ...pictures];
    const files = written.map((file) => ({ ...file, localPath: path.join(dir, file.name) }));
    const { storedSource } = input;
    const source = storedSource === undefined ? [{ ...SOURCE_VIDEO_FILE, localPath: input.sourcePath }] : [];
    for (const file of [...files, ...source]) {
      signal.throwIfAborted();
      ctx.stored.push(await deps.store.put(job.id, file.name, file.localPath, file.contentType, { signal }));
    }
    if (storedSource !== undefined) {
      ctx.stored.push(await deps.store.copy(storedSource.jobId, storedSource.name, job.id, { signal, as: SOURCE_VIDEO_FILE.name }));
    }
    // The source video is counted apart, once per distinct video of the account (GET /v1/usage).
    const sizes = await Promise.all(files.map(async (file) => (await stat(file.localPath)).size));
    return { quality: report.summary, pictures, storedBytes: sizes.reduce((sum, size) => sum + size, 0) };
  });
}

/** The words the files hold (the transcript's, with what changed them), the detected speech, the vocabulary's fate. */
export type QualityInput = Pick<QualityReportInput, "words" | "speech" | "vocabulary">;

/** Charges the reservation and marks the job completed with its files' keys and quality summary, in one transaction. */
export async function completeWithCharge(
  ctx: AttemptContext,
  input: { seconds: number; video: CaptionedVideo; quality: QualitySummary; pictures: readonly LocalResultFile[]; storedBytes: number },
): Promise<void> {
  const { deps, job, log, tracing } = ctx;
  const key = (name: string) => resultKey(job.id, name);
  const keyOf = (file: LocalResultFile, among: readonly LocalResultFile[]) => (among.includes(file) ? key(file.name) : null);
  const outcome = await tracing.stage("charge", () =>
    completeJob(deps.db, job.id, {
      videoKey: key(input.video.files[0]!.name),
      srtKey: key(RESULT_FILES.srt.name),
      vttKey: key(RESULT_FILES.vtt.name),
      assKey: key(RESULT_FILES.ass.name),
      transcriptKey: key(RESULT_FILES.transcript.name),
      qualityKey: key(RESULT_FILES.quality.name),
      quality: input.quality,
      sourceVideoKey: key(SOURCE_VIDEO_FILE.name),
      storedBytes: input.storedBytes,
      posterKey: keyOf(VIDEO_FILES.poster, input.pictures),
      previewStripKey: keyOf(VIDEO_FILES.previewStrip, input.pictures),
      overlayWebmKey: keyOf(VIDEO_FILES.overlayWebm, input.video.files),
      overlayMovKey: keyOf(VIDEO_FILES.overlayMov, input.video.files),
      expiresAt: new Date(deps.clock.now() + RETENTION_MS),
    }),
  );
  if (outcome === "not-running") {
    // Canceled meanwhile: remove the outputs. Completed by another attempt: they are the same files.
    if ((await jobStatus(deps.db, job.id)) === "canceled") await deps.store.deleteJob(job.id);
    log.info("job ended elsewhere before this attempt completed");
    return;
  }
  const { video } = input;
  log.info(
    {
      kind: job.kind,
      billed_seconds: input.seconds,
      rendered_seconds: video.renderedSeconds,
      frames_drawn: video.framesDrawn,
      ms: Math.round(performance.now() - ctx.started),
      stage_ms: tracing.stageMs,
    },
    "job completed",
  );
}
