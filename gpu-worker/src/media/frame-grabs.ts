import { stat } from "node:fs/promises";
import type { Logger } from "pino";
import { HDR_TO_SDR_FILTER } from "./dynamic-range.ts";
import { runFfmpeg } from "./ffmpeg.ts";

// Pictures of single frames of a rendered video, the poster and the preview strip: from frames the render took
// as it composited them (raw, one after another), or, where the render composited none (an overlay alone),
// each frame found by seeking to it in the input (decoding from the key frame before it), never by decoding
// the whole video.

export interface FramedVideo {
  /** Our own rendered MP4 (or the uncaptioned copy of a source beside an overlay). */
  path: string;
  frameRate: number;
  /** A transparent caption video (every frame an intra frame, such as the ProRes overlay) laid over it. */
  overlayPath?: string;
  /** Tone-map to SDR first (an uncaptioned HDR video). */
  hdr?: boolean;
}

export interface FrameGrabs {
  poster: { at: number; path: string };
  strip: { times: readonly number[]; path: string; height: number };
}

export interface GrabOptions {
  signal?: AbortSignal;
  binary?: string;
  logger?: Logger;
}

/** JPEG quality (ffmpeg's mjpeg qscale: 2 best … 31): a poster is looked at closely. */
const JPEG_QUALITY = "3";

/** Frames taken by the render: raw yuv420p at `width` x `height`, one after another. */
export interface TakenFrames {
  path: string;
  width: number;
  height: number;
}

/** Which taken frame (its index in the file) each picture is. */
export interface FramePicks {
  poster: { frame: number; path: string };
  strip: { frames: readonly number[]; path: string; height: number };
}

/** The filters after a picture's frame: the poster as it is, a strip frame scaled to the strip's height. */
const posterFilters = "format=yuv420p";
const stripFilters = (height: number) => `scale=-2:${height},setsar=1,format=yuv420p`;

/** ffmpeg's outputs of the poster and the strip from their labels: one JPEG each. */
const pictureOutputs = (grabs: { poster: { path: string }; strip: { path: string } }): string[] => [
  "-map", "[poster]", "-frames:v", "1", "-q:v", JPEG_QUALITY, "-f", "image2", grabs.poster.path,
  "-map", "[strip]", "-frames:v", "1", "-q:v", JPEG_QUALITY, "-f", "image2", grabs.strip.path,
];

/**
 * The poster and the strip (as `grabFrames` writes them) from frames the render took: a read of a few raw
 * frames and two JPEGs, no decoding. False, and nothing written, when the render ended before a picked frame
 * (a video whose sound outlasts its pictures): the caller seeks for them instead.
 */
export async function picturesFromFrames(taken: TakenFrames, picks: FramePicks, options: GrabOptions = {}): Promise<boolean> {
  const frames = [picks.poster.frame, ...picks.strip.frames];
  const { size } = await stat(taken.path);
  const frameBytes = taken.width * taken.height + 2 * Math.ceil(taken.width / 2) * Math.ceil(taken.height / 2);
  if (Math.floor(size / frameBytes) <= Math.max(...frames)) return false;
  const pick = (frame: number) => `select=eq(n\\,${frame})`;
  const graph = [
    `[0:v]split=${frames.length}${frames.map((_, i) => `[f${i}]`).join("")}`,
    // The render took its frames with square pixels (the pictures are made from the video's display size).
    `[f0]${pick(picks.poster.frame)},setsar=1,${posterFilters}[poster]`,
    ...picks.strip.frames.map((frame, k) => `[f${k + 1}]${pick(frame)},${stripFilters(picks.strip.height)}[s${k}]`),
    `${picks.strip.frames.map((_, k) => `[s${k}]`).join("")}hstack=inputs=${picks.strip.frames.length}[strip]`,
  ];
  await runFfmpeg({
    binary: options.binary,
    signal: options.signal,
    logger: options.logger,
    args: [
      "-hide_banner", "-loglevel", "error", "-y",
      "-f", "rawvideo", "-pix_fmt", "yuv420p", "-video_size", `${taken.width}x${taken.height}`, "-i", taken.path,
      "-filter_complex", graph.join(";"),
      ...pictureOutputs(picks),
    ],
  });
  return true;
}

/**
 * Where to seek for the frame on screen at `t`: its frame's start less half a frame, as ffmpeg keeps the
 * first frame at or after the seek point.
 */
export function seekPoint(t: number, frameRate: number): number {
  const frame = Math.floor(t * frameRate + 1e-6);
  return Math.max(0, (frame - 0.5) / frameRate);
}

/**
 * One ffmpeg run writing the poster (a JPEG of the frame at `poster.at`) and the strip (the frames at
 * `strip.times` scaled to `strip.height` and laid side by side, one JPEG).
 */
export async function grabFrames(video: FramedVideo, grabs: FrameGrabs, options: GrabOptions = {}): Promise<void> {
  const times = [grabs.poster.at, ...grabs.strip.times];
  const perInstant = video.overlayPath === undefined ? 1 : 2;
  const inputs = times.flatMap((t) => {
    // One decoding thread an input: a grab decodes a handful of frames, and threads decoding ahead of the
    // frame wanted cost a third more CPU (18 inputs of an overlay job).
    const ss = ["-threads", "1", "-ss", seekPoint(t, video.frameRate).toFixed(6)];
    return [...ss, "-i", video.path, ...(video.overlayPath === undefined ? [] : [...ss, "-i", video.overlayPath])];
  });
  // The frame of instant i, then the start of the filters that follow it: over it, its overlay frame.
  const picture = (i: number) => {
    const base = `[${i * perInstant}:v]`;
    const toned = video.hdr ? `${HDR_TO_SDR_FILTER},` : "";
    if (video.overlayPath === undefined) return `${base}${toned}`;
    const over = `[${i * perInstant + 1}:v]overlay=alpha=straight,`;
    return video.hdr ? `${base}${toned}null[base${i}];[base${i}]${over}` : `${base}${over}`;
  };
  const strip = grabs.strip.times.map((_, k) => `[s${k}]`).join("");
  const graph = [
    `${picture(0)}${posterFilters}[poster]`,
    ...grabs.strip.times.map((_, k) => `${picture(k + 1)}${stripFilters(grabs.strip.height)}[s${k}]`),
    `${strip}hstack=inputs=${grabs.strip.times.length}[strip]`,
  ];
  await runFfmpeg({
    binary: options.binary,
    signal: options.signal,
    logger: options.logger,
    args: [
      "-hide_banner", "-loglevel", "error", "-y",
      ...inputs,
      "-filter_complex", graph.join(";"),
      ...pictureOutputs(grabs),
    ],
  });
}
