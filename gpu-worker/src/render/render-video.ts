import { once } from "node:events";
import { rm } from "node:fs/promises";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Writable } from "node:stream";
import type { Logger } from "pino";
import { JobFailure } from "@caption/shared/errors/codes";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { FfmpegError, spawnFfmpeg } from "../media/ffmpeg.ts";
import type { H264Encoder } from "../media/h264-encoder.ts";
import type { MediaInfo } from "../media/media-info.ts";
import { animationFor } from "./animations/animation-for.ts";
import { bandFor, type Band } from "./band-layout.ts";
import { layoutCue, type CueLayout } from "./caption-layout.ts";
import { CaptionPainter, skiaFontMeasure } from "./caption-painter.ts";
import type { Cue } from "./cue-builder.ts";
import { scheduleFrames } from "./frame-schedule.ts";
import { MatroskaFrameWriter, matroskaHeader } from "./matroska-writer.ts";

export interface RenderVideoOptions {
  inputPath: string;
  outputPath: string;
  cues: readonly Cue[];
  style: ResolvedStyle;
  media: MediaInfo;
  encoder: H264Encoder;
  signal?: AbortSignal;
  /** Fraction of the video encoded, 0..1. */
  onProgress?: (fraction: number) => void;
  logger?: Logger;
  ffmpegBinary?: string;
}

/** Cues laid out on the frame, and the band that holds them all. */
export function planCaptions(cues: readonly Cue[], style: ResolvedStyle, durationSeconds: number): { layouts: CueLayout[]; band: Band } {
  const animation = animationFor(style.animation);
  const measure = skiaFontMeasure(style);
  const layouts = cues
    .filter((cue) => cue.end > cue.start && cue.start < durationSeconds && cue.lines.length > 0)
    .map((cue) => layoutCue(cue, style, measure, animation));
  return { layouts, band: bandFor(layouts.map((l) => l.ink), style.video) };
}

/**
 * Burns the captions into the video with one ffmpeg process: the source is input 0, a Matroska stream of
 * band-sized RGBA caption frames on stdin is input 1, overlaid at the band's row and encoded to MP4.
 * A frame is sent only when the picture changes; the overlay holds it until the next.
 */
export async function renderCaptionedVideo(options: RenderVideoOptions): Promise<{ framesDrawn: number }> {
  const { style, media, signal, logger } = options;
  if (style.video.width !== media.width || style.video.height !== media.height) {
    throw new Error(`style resolved for ${style.video.width}x${style.video.height}, video is ${media.width}x${media.height}`);
  }
  signal?.throwIfAborted();
  const animation = animationFor(style.animation);
  const { layouts, band } = planCaptions(options.cues, style, media.durationSeconds);
  const frameStep = 1 / media.frameRate;
  const schedule = scheduleFrames(
    layouts.map((layout) => ({ start: layout.cue.start, end: layout.cue.end, changeTimes: animation.changeTimes(layout, frameStep) })),
    { durationSeconds: media.durationSeconds, frameRate: media.frameRate },
  );
  logger?.debug({ band, cues: layouts.length, frames: schedule.length }, "caption render planned");

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
  try {
    const writer = new MatroskaFrameWriter(band);
    await write(ffmpeg.stdin, [matroskaHeader(band)], exit);
    let previous: { cue: number | null; t: number; pixels: Uint8ClampedArray } | null = null;
    for (const frame of schedule) {
      if (exited || signal?.aborted) break;
      let pixels: Uint8ClampedArray;
      if (previous !== null && previous.cue === frame.cue && previous.t === frame.t) {
        pixels = previous.pixels;
      } else {
        pixels = painter.paint(frame.cue === null ? null : layouts[frame.cue]!, frame.t);
        framesDrawn++;
      }
      previous = { cue: frame.cue, t: frame.t, pixels };
      await write(ffmpeg.stdin, writer.frame(frame.ptsMs, pixels), exit);
      // Skia's pixel buffers are freed by finalizers that only run when the loop yields.
      await yieldToEventLoop();
    }
    if (!exited) ffmpeg.stdin.end();
    await ffmpeg.done;
  } catch (error) {
    stop.abort(error);
    await ffmpeg.done.catch(() => undefined);
    await rm(options.outputPath, { force: true });
    if (signal?.aborted) throw signal.reason;
    if (error instanceof FfmpegError) {
      throw new JobFailure("RENDER_FAILED", "Rendering the captioned video failed", { cause: error });
    }
    throw error;
  }
  logger?.info({ frames_drawn: framesDrawn, band_height: band.height }, "captioned video rendered");
  return { framesDrawn };
}

async function write(stdin: Writable, chunks: readonly Buffer[], exit: Promise<unknown>): Promise<void> {
  let ready = true;
  for (const chunk of chunks) ready = stdin.write(chunk);
  if (ready) return;
  const stop = new AbortController();
  try {
    await Promise.race([once(stdin, "drain", { signal: stop.signal }).catch(() => undefined), exit]);
  } finally {
    stop.abort();
  }
}

function ffmpegArgs(options: RenderVideoOptions, band: Band): string[] {
  const { media } = options;
  const audio = media.hasAudio ? ["-map", "0:a:0", "-c:a", media.audioCodec === "aac" ? "copy" : "aac"] : [];
  return [
    "-hide_banner",
    "-loglevel", "error",
    "-y",
    "-i", options.inputPath,
    "-f", "matroska",
    "-i", "pipe:0",
    "-filter_complex", `[0:v][1:v]overlay=x=0:y=${band.y}:alpha=straight:eof_action=pass[v]`,
    "-map", "[v]",
    ...audio,
    ...options.encoder.args,
    "-movflags", "+faststart",
    "-f", "mp4",
    options.outputPath,
  ];
}
