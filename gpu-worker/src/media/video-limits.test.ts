import assert from "node:assert/strict";
import { test } from "node:test";
import { JobFailure, type JobErrorCode } from "@caption/shared/errors/codes";
import type { MediaInfo } from "./media-info.ts";
import { assertSupportedVideo } from "./video-limits.ts";

const MP4: MediaInfo = {
  container: "mov",
  formatName: "mov,mp4,m4a,3gp,3g2,mj2",
  durationSeconds: 30,
  declaredDurationSeconds: 30,
  width: 1920,
  height: 1080,
  frameRate: 30,
  videoFrames: 900,
  videoStreamIndex: 0,
  audioStreamIndex: 1,
  videoCodec: "h264",
  colorTransfer: "bt709",
  audioCodec: "aac",
  hasAudio: true,
  sizeBytes: 1_000_000,
};
const WEBM: MediaInfo = { ...MP4, container: "matroska", formatName: "matroska,webm", videoCodec: "vp9", audioCodec: "opus" };

const cases: [string, MediaInfo, JobErrorCode | null][] = [
  ["1080p landscape MP4", MP4, null],
  ["1080p portrait MOV", { ...MP4, width: 1080, height: 1920 }, null],
  ["HEVC in MOV", { ...MP4, videoCodec: "hevc" }, null],
  ["VP9 + Opus WebM", WEBM, null],
  ["VP8 + Vorbis WebM", { ...WEBM, videoCodec: "vp8", audioCodec: "vorbis" }, null],
  ["AV1 + Opus WebM", { ...WEBM, videoCodec: "av1" }, null],
  ["exactly 600 s", { ...MP4, durationSeconds: 600 }, null],
  ["square 1080", { ...MP4, width: 1080, height: 1080 }, null],
  ["H.264 in Matroska", { ...WEBM, videoCodec: "h264" }, "UNSUPPORTED_FORMAT"],
  ["VP9 + AAC in Matroska", { ...WEBM, audioCodec: "aac" }, "UNSUPPORTED_FORMAT"],
  ["AVI", { ...MP4, formatName: "avi" }, "UNSUPPORTED_FORMAT"],
  ["MPEG-TS", { ...MP4, formatName: "mpegts" }, "UNSUPPORTED_FORMAT"],
  ["600.5 s", { ...MP4, durationSeconds: 600.5 }, "VIDEO_TOO_LONG"],
  ["1440p", { ...MP4, width: 2560, height: 1440 }, "RESOLUTION_TOO_HIGH"],
  ["2000 px wide", { ...MP4, width: 2000, height: 1000 }, "RESOLUTION_TOO_HIGH"],
  ["square 1200", { ...MP4, width: 1200, height: 1200 }, "RESOLUTION_TOO_HIGH"],
  ["4K portrait", { ...MP4, width: 2160, height: 3840 }, "RESOLUTION_TOO_HIGH"],
  ["120 fps of frames present", { ...MP4, videoFrames: 3600 }, null],
  ["more frames than 120 fps, whatever the declared rate", { ...MP4, videoFrames: 3601 }, "UNSUPPORTED_FORMAT"],
  ["no audio", { ...MP4, hasAudio: false, audioCodec: null }, "NO_AUDIO_TRACK"],
  ["silent WebM", { ...WEBM, hasAudio: false, audioCodec: null }, "NO_AUDIO_TRACK"],
  ["format checked before length", { ...MP4, formatName: "avi", durationSeconds: 9000 }, "UNSUPPORTED_FORMAT"],
  ["length checked before audio", { ...MP4, durationSeconds: 9000, hasAudio: false, audioCodec: null }, "VIDEO_TOO_LONG"],
];

for (const [name, info, expected] of cases) {
  test(`${name} → ${expected ?? "accepted"}`, () => {
    if (expected === null) {
      assertSupportedVideo(info);
      return;
    }
    assert.throws(() => assertSupportedVideo(info), (error: unknown) => error instanceof JobFailure && error.code === expected);
  });
}
