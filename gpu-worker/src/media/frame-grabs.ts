import type { Logger } from "pino";
import { HDR_TO_SDR_FILTER } from "./dynamic-range.ts";
import { runFfmpeg } from "./ffmpeg.ts";

// Pictures of single frames of a rendered video: each frame found by seeking to it in the input (decoding
// from the key frame before it), never by decoding the whole video.

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

/** JPEG quality (ffmpeg's mjpeg qscale: 2 best … 31): a poster is looked at closely. */
const JPEG_QUALITY = "3";

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
export async function grabFrames(
  video: FramedVideo,
  grabs: FrameGrabs,
  options: { signal?: AbortSignal; binary?: string; logger?: Logger } = {},
): Promise<void> {
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
    `${picture(0)}format=yuv420p[poster]`,
    ...grabs.strip.times.map((_, k) => `${picture(k + 1)}scale=-2:${grabs.strip.height},setsar=1,format=yuv420p[s${k}]`),
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
      "-map", "[poster]", "-frames:v", "1", "-q:v", JPEG_QUALITY, "-f", "image2", grabs.poster.path,
      "-map", "[strip]", "-frames:v", "1", "-q:v", JPEG_QUALITY, "-f", "image2", grabs.strip.path,
    ],
  });
}
