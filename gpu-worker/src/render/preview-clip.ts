import type { Logger } from "pino";
import type { MediaInfo } from "../media/media-info.ts";
import { limitArg, sourceInputArgs } from "../media/source-input.ts";
import { animationFor } from "./animations/animation-for.ts";
import { CaptionPainter } from "./caption-painter.ts";
import { pipeCaptionFrames } from "./caption-pipe.ts";
import type { CaptionTimeline } from "./caption-timeline.ts";
import { windowFrames } from "./caption-timeline.ts";
import { frameRateFraction } from "./overlay-output.ts";
import { mp4OutputArgs, sourcePicture } from "./render-video.ts";

/** What a clip's captions are laid over: a still picture (yuv420p file) repeated, or a stretch of a video. */
export type ClipBackground = { picturePath: string; width: number; height: number } | { videoPath: string; media: MediaInfo; firstFrame: number };

/** Quick to encode: a preview clip is looked at once. */
const CLIP_ENCODER = ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", "-pix_fmt", "yuv420p"];

/**
 * A preview clip: `count` frames of the timeline from frame `first`, painted and piped as a render pipes
 * them, over the background, as an MP4 without sound.
 */
export async function renderPreviewClip(options: {
  timeline: CaptionTimeline;
  first: number;
  count: number;
  background: ClipBackground;
  outputPath: string;
  signal?: AbortSignal;
  logger?: Logger;
  ffmpegBinary?: string;
}): Promise<void> {
  const { timeline, background, count } = options;
  const { num, den } = frameRateFraction(timeline.frameRate);
  const seconds = count / timeline.frameRate;
  const backgroundInput =
    "picturePath" in background
      ? ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", `${background.width}x${background.height}`, "-framerate", `${num}/${den}`, "-stream_loop", "-1", "-i", background.picturePath]
      : ["-ss", ((background.firstFrame - 0.5) / timeline.frameRate).toFixed(6), ...sourceInputArgs({ path: background.videoPath, container: background.media.container }, { limitSeconds: seconds + 1 / timeline.frameRate })];
  const base = "picturePath" in background ? "[0:v]" : sourcePicture(background.media);
  const { band } = timeline;
  await pipeCaptionFrames({
    args: [
      "-hide_banner", "-loglevel", "error", "-y",
      ...backgroundInput,
      "-protocol_whitelist", "pipe",
      "-f", "matroska",
      "-i", "pipe:0",
      // The background's first frame is the window's: its times from 0, as the captions' are.
      "-filter_complex", `${base}setpts=PTS-STARTPTS[bg];[bg][1:v]overlay=x=${band.x}:y=${band.y}:alpha=straight:eof_action=pass[v]`,
      "-map", "[v]",
      "-frames:v", String(count),
      ...CLIP_ENCODER,
      "-an",
      "-t", limitArg(seconds),
      ...mp4OutputArgs(options.outputPath),
    ],
    band,
    painter: new CaptionPainter(timeline.style, band, animationFor(timeline.style.animation)),
    batches: (async function* () {
      yield windowFrames(timeline, options.first, count);
    })(),
    outputPaths: [options.outputPath],
    signal: options.signal,
    logger: options.logger,
    ffmpegBinary: options.ffmpegBinary,
  });
}
