import { MAX_VIDEO_SECONDS } from "@caption/shared/api/submission";
import { JobFailure } from "@caption/shared/errors/codes";
import type { MediaInfo } from "./media-info.ts";

export const MAX_LONG_SIDE_PX = 1920;
export const MAX_SHORT_SIDE_PX = 1080;
/** Frames per second of video actually present (packets ÷ duration): what the render has to draw. */
export const MAX_FRAME_RATE = 120;

// ffprobe names the demuxer, which covers several containers: MP4 and MOV share one, WebM shares
// one with Matroska, so WebM is told apart by the codecs it allows.
const MP4_MOV_FORMAT = "mov,mp4,m4a,3gp,3g2,mj2";
const MATROSKA_WEBM_FORMAT = "matroska,webm";
const WEBM_VIDEO_CODECS = new Set(["vp8", "vp9", "av1"]);
const WEBM_AUDIO_CODECS = new Set(["opus", "vorbis"]);

function isSupportedContainer(info: MediaInfo): boolean {
  if (info.formatName === MP4_MOV_FORMAT) return true;
  if (info.formatName !== MATROSKA_WEBM_FORMAT) return false;
  return WEBM_VIDEO_CODECS.has(info.videoCodec) && (info.audioCodec === null || WEBM_AUDIO_CODECS.has(info.audioCodec));
}

/** Applies the service limits (spec: MP4/MOV/WebM, ≤ 600 s, up to 1080p either way, with audio; ours: ≤ 120 fps). */
export function assertSupportedVideo(info: MediaInfo): void {
  if (!isSupportedContainer(info)) {
    const codecs = [info.videoCodec, info.audioCodec].filter((codec) => codec !== null).join("/");
    throw new JobFailure("UNSUPPORTED_FORMAT", `Unsupported format ${info.formatName} (${codecs}); MP4, MOV and WebM are accepted`);
  }
  if (info.durationSeconds > MAX_VIDEO_SECONDS) {
    throw new JobFailure("VIDEO_TOO_LONG", `The video is ${info.durationSeconds.toFixed(1)} s long; the limit is ${MAX_VIDEO_SECONDS} s`);
  }
  const longSide = Math.max(info.width, info.height);
  const shortSide = Math.min(info.width, info.height);
  if (longSide > MAX_LONG_SIDE_PX || shortSide > MAX_SHORT_SIDE_PX) {
    throw new JobFailure(
      "RESOLUTION_TOO_HIGH",
      `The video is ${info.width}x${info.height}; the limit is ${MAX_LONG_SIDE_PX}x${MAX_SHORT_SIDE_PX} in landscape or portrait`,
    );
  }
  const averageRate = info.videoFrames / info.durationSeconds;
  if (averageRate > MAX_FRAME_RATE) {
    throw new JobFailure("UNSUPPORTED_FORMAT", `The video has ${info.videoFrames} frames in ${info.durationSeconds.toFixed(2)} s (${averageRate.toFixed(0)} fps); the limit is ${MAX_FRAME_RATE} fps`);
  }
  if (!info.hasAudio) throw new JobFailure("NO_AUDIO_TRACK", "The video has no audio track");
}

/**
 * H.264 in 4:2:0, what every player decodes and the burned video is, codes only even sizes (x264 and NVENC refuse
 * others): a burned video of an odd-sized one cannot be made, and saying so before any work is cheaper than a
 * failed render after recognition. Its overlay can (VP9 and ProRes code any size).
 */
export function assertBurnable(info: Pick<MediaInfo, "width" | "height">): void {
  if (info.width % 2 === 0 && info.height % 2 === 0) return;
  throw new JobFailure(
    "UNSUPPORTED_FORMAT",
    `The video is ${info.width}x${info.height}; captions can be burned only into a video of even width and height (H.264), but output kind "overlay" takes any size`,
  );
}
