import { rm } from "node:fs/promises";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Writable } from "node:stream";
import type { Logger } from "pino";
import { JobFailure } from "@caption/shared/errors/codes";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { FfmpegError, spawnFfmpeg } from "../media/ffmpeg.ts";
import type { H264Encoder } from "../media/h264-encoder.ts";
import { HDR_TO_SDR_FILTER, isHdr, SDR_BT709_TAGS } from "../media/dynamic-range.ts";
import type { MediaInfo } from "../media/media-info.ts";
import type { VideoDecoder } from "../media/video-decoder.ts";
import { limitArg, sourceInputArgs } from "../media/source-input.ts";
import { animationFor } from "./animations/animation-for.ts";
import { bandFor, type Band } from "./band-layout.ts";
import { layoutCue, type CueLayout } from "./caption-layout.ts";
import { CaptionPainter } from "./caption-painter.ts";
import { skiaFontMeasure, type FontMeasure } from "./font-measure.ts";
import type { Cue } from "./cue-builder.ts";
import { FrameSchedule, type ScheduledFrame } from "./frame-schedule.ts";
import { MatroskaFrameWriter, matroskaHeader } from "./matroska-writer.ts";
import { styleBand } from "./style-band.ts";
import { YuvaPicture } from "./yuva-picture.ts";

/**
 * The captions: all cues up front (the band is fitted to their ink), or a stream of cues in order, each batch
 * final, while recognition still runs (the band is the style's, known before any cue; ffmpeg's overlay waits
 * for the caption stream, so the video is encoded only as far as the captions are known).
 */
export type CaptionCues = { cues: readonly Cue[]; cueStream?: never } | { cueStream: AsyncIterable<readonly Cue[]>; cues?: never };

export type RenderVideoOptions = CaptionCues & {
  inputPath: string;
  outputPath: string;
  style: ResolvedStyle;
  media: MediaInfo;
  encoder: H264Encoder;
  /** NVDEC or software decoding of the source; default software. */
  decoder?: VideoDecoder;
  signal?: AbortSignal;
  /** Fraction of the video encoded, 0..1. */
  onProgress?: (fraction: number) => void;
  logger?: Logger;
  ffmpegBinary?: string;
};

/** Cues laid out on the frame (those that show anything before the end), and the band that holds them all. */
export function planCaptions(cues: readonly Cue[], style: ResolvedStyle, durationSeconds: number): { layouts: CueLayout[]; band: Band } {
  const layouts = layoutShown(cues, style, skiaFontMeasure(style), durationSeconds);
  return { layouts, band: bandFor(layouts.map((l) => l.ink), style.video) };
}

function layoutShown(cues: readonly Cue[], style: ResolvedStyle, measure: FontMeasure, durationSeconds: number): CueLayout[] {
  const animation = animationFor(style.animation);
  return cues
    .filter((cue) => cue.end > cue.start && cue.start < durationSeconds && cue.lines.length > 0)
    .map((cue) => layoutCue(cue, style, measure, animation));
}

/** The band, and the laid-out cues in batches as they become known. */
function captionPlan(options: RenderVideoOptions): { band: Band; batches: AsyncIterable<CueLayout[]> } {
  const { style, media } = options;
  if (options.cueStream === undefined) {
    const { layouts, band } = planCaptions(options.cues, style, media.durationSeconds);
    return { band, batches: (async function* () { yield layouts; })() };
  }
  const measure = skiaFontMeasure(style);
  const stream = options.cueStream;
  return {
    band: styleBand(style, measure, animationFor(style.animation)),
    batches: (async function* () {
      for await (const cues of stream) yield layoutShown(cues, style, measure, media.durationSeconds);
    })(),
  };
}

/**
 * Burns the captions into the video with one ffmpeg process: the source is input 0, a Matroska stream of
 * band-sized yuva420p caption frames on stdin is input 1, overlaid at the band's place and encoded to MP4.
 * A frame is sent only when the picture changes, and only the part of it that changes is painted and converted
 * again; the overlay holds it until the next.
 */
export async function renderCaptionedVideo(options: RenderVideoOptions): Promise<{ framesDrawn: number; paintMs: number }> {
  const { style, media, signal, logger } = options;
  if (style.video.width !== media.width || style.video.height !== media.height) {
    throw new Error(`style resolved for ${style.video.width}x${style.video.height}, video is ${media.width}x${media.height}`);
  }
  signal?.throwIfAborted();
  const animation = animationFor(style.animation);
  const { band, batches } = captionPlan(options);
  const frameStep = 1 / media.frameRate;
  const schedule = new FrameSchedule({ durationSeconds: media.durationSeconds, frameRate: media.frameRate });
  const layouts: CueLayout[] = [];
  logger?.debug({ band, streamed: options.cueStream !== undefined }, "caption render planned");

  const painter = new CaptionPainter(style, band, animation);
  // Also stops ffmpeg when drawing fails here, not only when the caller aborts.
  const stop = new AbortController();
  const ffmpeg = spawnFfmpeg({
    binary: options.ffmpegBinary,
    signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal,
    logger,
    args: ffmpegArgs(options, band),
    onProgress: (p) => {
      if (!options.onProgress) return;
      if (p.done) options.onProgress(1);
      else if (p.outTimeSeconds !== null) options.onProgress(Math.min(1, p.outTimeSeconds / media.durationSeconds));
    },
  });
  // ffmpeg may exit (failure, abort) while frames are still being written; its exit status tells why.
  ffmpeg.stdin.on("error", () => undefined);
  let exited = false;
  const exit = ffmpeg.done.then(
    () => (exited = true),
    () => (exited = true),
  );

  let framesDrawn = 0;
  // Drawing and converting caption pictures, for the benchmark's frames-per-second figure.
  let paintMs = 0;
  try {
    const writer = new MatroskaFrameWriter(band);
    const picture = new YuvaPicture(band.width, band.height);
    await write(ffmpeg.stdin, [matroskaHeader(band)], exit);
    const send = async (frames: readonly ScheduledFrame[]) => {
      for (const frame of frames) {
        if (exited || signal?.aborted) return;
        const paintStarted = performance.now();
        const patch = painter.update(frame.cue === null ? null : layouts[frame.cue]!, frame.t);
        if (patch !== null) {
          picture.update(patch);
          framesDrawn++;
        }
        paintMs += performance.now() - paintStarted;
        // Resolves once ffmpeg has the bytes, so the picture may change again.
        await write(ffmpeg.stdin, writer.frame(frame.ptsMs, picture.bytes), exit);
        // Skia's pixel buffers are freed by finalizers that only run when the loop yields.
        await yieldToEventLoop();
      }
    };
    // A failed ffmpeg ends the wait for cues still being recognised.
    for await (const batch of untilSettled(batches, exit)) {
      for (const layout of batch) {
        layouts.push(layout);
        await send(schedule.add({ start: layout.cue.start, end: layout.cue.end, changeTimes: animation.changeTimes(layout, frameStep) }));
      }
    }
    await send(schedule.finish());
    if (!exited) ffmpeg.stdin.end();
    await ffmpeg.done;
  } catch (error) {
    stop.abort(error);
    await ffmpeg.done.catch(() => undefined);
    await rm(options.outputPath, { force: true });
    if (signal?.aborted) throw signal.reason;
    if (error instanceof FfmpegError && !error.notStarted) {
      throw new JobFailure("RENDER_FAILED", "Rendering the captioned video failed", { cause: error });
    }
    throw error;
  }
  logger?.info({ frames_drawn: framesDrawn, paint_ms: Math.round(paintMs), band_width: band.width, band_height: band.height }, "captioned video rendered");
  return { framesDrawn, paintMs };
}

/** The iterable's items until it ends or `settled` settles first (then the iteration is cut short). */
async function* untilSettled<T>(iterable: AsyncIterable<T>, settled: Promise<unknown>): AsyncGenerator<T> {
  const iterator = iterable[Symbol.asyncIterator]();
  const ended = settled.then(() => ({ done: true as const, value: undefined }));
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), ended]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    void iterator.return?.();
  }
}

/** Writes the chunks; resolves when the last has been handed to the pipe (or ffmpeg has exited). */
async function write(stdin: Writable, chunks: readonly Buffer[], exit: Promise<unknown>): Promise<void> {
  const last = chunks.at(-1);
  if (last === undefined) return;
  for (const chunk of chunks.slice(0, -1)) stdin.write(chunk);
  await Promise.race([new Promise<void>((resolve) => stdin.write(last, () => resolve())), exit]);
}

/** The source's first audio track, copied when it is AAC (what MP4 players expect), else encoded to AAC. */
export function audioOutputArgs(media: Pick<MediaInfo, "hasAudio" | "audioCodec">): string[] {
  return media.hasAudio ? ["-map", "0:a:0", "-c:a", media.audioCodec === "aac" ? "copy" : "aac"] : [];
}

/** An MP4 with its index at the front, so players can start before the whole file has arrived. */
export function mp4OutputArgs(outputPath: string): string[] {
  return ["-movflags", "+faststart", "-f", "mp4", outputPath];
}

/** The source's video as the overlay's base: tone-mapped to SDR first when it is HDR. */
function sourcePicture(media: MediaInfo): string {
  const video = `[0:${media.videoStreamIndex}]`;
  return isHdr(media) ? `${video}${HDR_TO_SDR_FILTER}[base];[base]` : video;
}

function ffmpegArgs(options: RenderVideoOptions, band: Band): string[] {
  const { media } = options;
  return [
    "-hide_banner",
    "-loglevel", "error",
    "-y",
    ...(options.decoder?.inputArgs ?? []),
    // The source is read no further than its inspected (billed) duration, and so is the output cut.
    ...sourceInputArgs({ path: options.inputPath, container: media.container }, { limitSeconds: media.durationSeconds }),
    "-protocol_whitelist", "pipe",
    "-f", "matroska",
    "-i", "pipe:0",
    "-filter_complex", `${sourcePicture(media)}[1:v]overlay=x=${band.x}:y=${band.y}:alpha=straight:eof_action=pass[v]`,
    "-map", "[v]",
    ...audioOutputArgs(media),
    ...options.encoder.args,
    ...(isHdr(media) ? SDR_BT709_TAGS : []),
    "-t", limitArg(media.durationSeconds),
    ...mp4OutputArgs(options.outputPath),
  ];
}
