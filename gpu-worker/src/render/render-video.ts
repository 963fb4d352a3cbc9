import type { Logger } from "pino";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import type { H264Encoder } from "../media/h264-encoder.ts";
import { HDR_TO_SDR_FILTER, isHdr, SDR_BT709_TAGS } from "../media/dynamic-range.ts";
import type { MediaInfo } from "../media/media-info.ts";
import type { VideoDecoder } from "../media/video-decoder.ts";
import { limitArg, sourceInputArgs } from "../media/source-input.ts";
import { animationFor } from "./animations/animation-for.ts";
import { bandFor, type Band } from "./band-layout.ts";
import { layoutCue, type CueLayout } from "./caption-layout.ts";
import { CaptionPainter } from "./caption-painter.ts";
import { pipeCaptionFrames, type PipedFrame } from "./caption-pipe.ts";
import { skiaFontMeasure, type FontMeasure } from "./font-measure.ts";
import type { Cue } from "./cue-builder.ts";
import { FrameSchedule, type ScheduledFrame } from "./frame-schedule.ts";
import { OverlayEncoders } from "./overlay-encoders.ts";
import { OVERLAY_WEBM_KEY_INTERVAL_MS, overlayGraph, overlayOutputArgs, type OverlayOutputs, type OverlayParts } from "./overlay-output.ts";
import { PictureChooser, type ChosenPictures, type FramesToTake } from "./picture-chooser.ts";
import { frameMarks, pictureGraph, pictureOutputArgs } from "./picture-track.ts";
import { styleBand } from "./style-band.ts";

/**
 * The captions: all cues up front (the band is fitted to their ink), or a stream of cues in order, each batch
 * final, while recognition still runs (the band is the style's, known before any cue; ffmpeg's overlay waits
 * for the caption stream, so the video is encoded only as far as the captions are known).
 */
export type CaptionCues = { cues: readonly Cue[]; cueStream?: never } | { cueStream: AsyncIterable<readonly Cue[]>; cues?: never };

export type RenderVideoOptions = CaptionCues & {
  /** The source; read only for a burned video. */
  inputPath: string;
  /** The burned video (MP4); omitted: no burned video, and the source is not decoded at all. */
  outputPath?: string;
  /** The transparent caption video, alone or beside the burned one. */
  overlay?: OverlayOutputs;
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
  /**
   * Choose the poster's and the preview strip's frames as the cues come (render/picture-chooser.ts); with a
   * burned video, also take them from its composited frames into `framesPath` (render/picture-track.ts).
   */
  pictures?: { framesPath: string };
};

export interface RenderedPictures {
  chosen: ChosenPictures;
  /** The frames taken, raw yuv420p at the video's size in the order of their takes; null without a burned video. */
  framesPath: string | null;
}

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
 * Burns the captions into the video (`outputPath`), lays them alone on a transparent canvas (`overlay`), or
 * both, with one ffmpeg process: a Matroska stream of band-sized yuva420p caption frames on stdin is input 0;
 * the source, read only for a burned video, is input 1, with the captions overlaid at the band's place and
 * encoded to MP4. A frame is sent only when the picture changes, and only the part of it that changes is
 * painted and converted again; the overlay holds it until the next.
 */
export async function renderCaptionedVideo(options: RenderVideoOptions): Promise<{ framesDrawn: number; paintMs: number; pictures?: RenderedPictures }> {
  const { style, media, logger } = options;
  if (style.video.width !== media.width || style.video.height !== media.height) {
    throw new Error(`style resolved for ${style.video.width}x${style.video.height}, video is ${media.width}x${media.height}`);
  }
  if (options.outputPath === undefined && options.overlay === undefined) throw new Error("a render needs a burned video, an overlay or both");
  const animation = animationFor(style.animation);
  const { band, batches } = captionPlan(options);
  const frameStep = 1 / media.frameRate;
  const schedule = new FrameSchedule({ durationSeconds: media.durationSeconds, frameRate: media.frameRate });
  logger?.debug({ band, streamed: options.cueStream !== undefined, burned: options.outputPath !== undefined, overlay: options.overlay !== undefined }, "caption render planned");
  const layouts: CueLayout[] = [];
  const piped = (frames: readonly ScheduledFrame[]): PipedFrame[] =>
    frames.map((frame) => ({ ptsMs: frame.ptsMs, layout: frame.cue === null ? null : layouts[frame.cue]!, t: frame.t }));
  const chooser = options.pictures && new PictureChooser({ style, durationSeconds: pictureSeconds(media), frameRate: media.frameRate });
  const takesFrames = chooser !== undefined && options.outputPath !== undefined;
  // A cue's marks go out before its caption frames: ffmpeg composites nothing past them before they are known.
  const marks = (toTake: FramesToTake | undefined) => (toTake && takesFrames ? frameMarks(toTake, media.frameRate) : []);
  const frames = async function* () {
    for await (const batch of batches) {
      for (const layout of batch) {
        layouts.push(layout);
        const toTake = chooser?.add(layout);
        const changeTimes = animation.changeTimes(layout, frameStep);
        yield [...marks(toTake), ...piped(schedule.add({ start: layout.cue.start, end: layout.cue.end, changeTimes }))];
      }
    }
    yield [...marks(chooser?.finish()), ...piped(schedule.finish({ holdLastFrame: options.overlay !== undefined }))];
  };
  const framesPath = takesFrames ? options.pictures!.framesPath : undefined;
  const overlay = options.overlay && new OverlayEncoders(options.overlay, {
    media,
    band,
    frames: frameCount(media),
    ffmpegBinary: options.ffmpegBinary,
    signal: options.signal,
    logger,
  });
  const webmParts = overlay?.webmParts;
  let result: Awaited<ReturnType<typeof pipeCaptionFrames>>;
  try {
    result = await pipeCaptionFrames({
      args: ffmpegArgs(options, band, webmParts, framesPath),
      ...(webmParts && { alphaTrack: { keyIntervalMs: OVERLAY_WEBM_KEY_INTERVAL_MS } }),
      markTrack: framesPath !== undefined,
      sinks: overlay?.sinks ?? [],
      band,
      painter: new CaptionPainter(style, band, animation),
      batches: frames(),
      outputPaths: [options.outputPath, webmParts?.colour, webmParts?.alpha, framesPath].filter((path) => path !== undefined),
      signal: options.signal,
      logger,
      ffmpegBinary: options.ffmpegBinary,
      onProgress: (seconds, done) => {
        if (!options.onProgress) return;
        if (done) options.onProgress(1);
        else if (seconds !== null) options.onProgress(Math.min(1, seconds / media.durationSeconds));
      },
    });
    await overlay?.finish();
  } finally {
    await overlay?.close();
  }
  logger?.info({ frames_drawn: result.framesDrawn, paint_ms: Math.round(result.paintMs), band_width: band.width, band_height: band.height }, "captioned video rendered");
  // The render ends with the pictures; cues of sound past them were never read, and no frame can show them.
  if (chooser && !chooser.finished) chooser.finish();
  return { ...result, ...(chooser && { pictures: { chosen: chooser.chosen(), framesPath: framesPath ?? null } }) };
}

/** The source's first audio track, copied when it is AAC (what MP4 players expect), else encoded to AAC. */
export function audioOutputArgs(media: Pick<MediaInfo, "hasAudio" | "audioCodec">): string[] {
  return media.hasAudio ? ["-map", "0:a:0", "-c:a", media.audioCodec === "aac" ? "copy" : "aac"] : [];
}

/** An MP4 with its index at the front, so players can start before the whole file has arrived. */
export function mp4OutputArgs(outputPath: string): string[] {
  return ["-movflags", "+faststart", "-f", "mp4", outputPath];
}

/** The source's video (ffmpeg input `input`) as the overlay's base: tone-mapped to SDR first when it is HDR. */
export function sourcePicture(media: Pick<MediaInfo, "videoStreamIndex" | "colorTransfer">, input = 0): string {
  const video = `[${input}:${media.videoStreamIndex}]`;
  return isHdr(media) ? `${video}${HDR_TO_SDR_FILTER}[base];[base]` : video;
}

/** Frames of a constant-rate video as long as the source, from its first frame. */
/** How long the pictures last: a video's sound may run on past its last frame, and a poster can only be a frame. */
export const pictureSeconds = (media: Pick<MediaInfo, "durationSeconds" | "frameRate" | "videoFrames">): number =>
  media.videoFrames > 0 ? Math.min(media.durationSeconds, media.videoFrames / media.frameRate) : media.durationSeconds;

export const frameCount = (media: Pick<MediaInfo, "durationSeconds" | "frameRate">): number => Math.max(1, Math.round(media.durationSeconds * media.frameRate));

/**
 * ffmpeg's arguments for the burned video and, given `parts`, the overlay WebM's streams, and given `framesPath`,
 * the frames taken for the pictures; none when it has neither video to do.
 */
function ffmpegArgs(options: RenderVideoOptions, band: Band, parts: OverlayParts | undefined, framesPath: string | undefined): string[] | undefined {
  const { media } = options;
  const burned = options.outputPath;
  if (burned === undefined && parts === undefined) return undefined;
  // The source, when there is one to burn into, is input 0 (as it always was); the caption stream follows.
  const input = burned === undefined ? 0 : 1;
  const captions = `[${input}:v:0]`;
  const both = burned !== undefined && parts !== undefined;
  const [toBurn, toOverlay] = both ? ["[burn]", "[alone]"] : [captions, captions];
  const takes = burned !== undefined && framesPath !== undefined;
  // The mark track follows the alpha track when there is one.
  const marks = `[${input}:v:${parts === undefined ? 1 : 2}]`;
  const graph = [
    ...(both ? [`${captions}split=2${toBurn}${toOverlay}`] : []),
    ...(burned === undefined ? [] : [`${sourcePicture(media)}${toBurn}overlay=x=${band.x}:y=${band.y}:alpha=straight:eof_action=pass${takes ? ",split=2[v][composited]" : "[v]"}`]),
    ...(parts === undefined ? [] : overlayGraph(toOverlay, `[${input}:v:1]`, media, band)),
    ...(takes ? pictureGraph("[composited]", marks, media) : []),
  ];
  return [
    "-hide_banner",
    "-loglevel", "error",
    "-y",
    ...(burned === undefined
      ? []
      : [
          ...(options.decoder?.inputArgs ?? []),
          // The source is read no further than its inspected (billed) duration, and so is the output cut.
          ...sourceInputArgs({ path: options.inputPath, container: media.container }, { limitSeconds: media.durationSeconds }),
        ]),
    "-protocol_whitelist", "pipe",
    "-f", "matroska",
    "-i", "pipe:0",
    "-filter_complex", graph.join(";"),
    ...(burned === undefined
      ? []
      : ["-map", "[v]", ...audioOutputArgs(media), ...options.encoder.args, ...(isHdr(media) ? SDR_BT709_TAGS : []), "-t", limitArg(media.durationSeconds), ...mp4OutputArgs(burned)]),
    ...(parts === undefined ? [] : overlayOutputArgs(media, parts)),
    ...(takes ? pictureOutputArgs(framesPath) : []),
  ];
}
