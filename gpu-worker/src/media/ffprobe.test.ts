import assert from "node:assert/strict";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { after, before, test } from "node:test";
import { Value } from "@sinclair/typebox/value";
import { JobFailure } from "@caption/shared/errors/codes";
import { makeNonVideoFile, makeSpeechVideo } from "../../../test/src/fixtures/speech-video.ts";
import { runFfmpeg, streamFfmpegOutput } from "./ffmpeg.ts";
import { parseFrameRate, probeMedia } from "./ffprobe.ts";
import { MediaInfoSchema } from "./media-info.ts";

const TEXT = "Captions make videos easier to follow.";
let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "ffprobe-test-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function isUnsupported(error: unknown): boolean {
  return error instanceof JobFailure && error.code === "UNSUPPORTED_FORMAT";
}

test("probes an MP4 with H.264 and AAC", async () => {
  const video = await makeSpeechVideo({ text: TEXT, width: 640, height: 360, fps: 25 });
  const info = await probeMedia(video.path);
  assert.ok(Value.Check(MediaInfoSchema, info));
  assert.deepEqual({ ...info, durationSeconds: undefined, sizeBytes: undefined }, {
    formatName: "mov,mp4,m4a,3gp,3g2,mj2",
    durationSeconds: undefined,
    width: 640,
    height: 360,
    frameRate: 25,
    videoCodec: "h264",
    audioCodec: "aac",
    hasAudio: true,
    sizeBytes: undefined,
  });
  assert.ok(Math.abs(info.durationSeconds - video.durationSeconds) < 0.05);
  assert.ok(info.sizeBytes > 0);
});

test("probes a portrait MOV and a WebM", async () => {
  const mov = await probeMedia((await makeSpeechVideo({ text: TEXT, width: 360, height: 640, container: "mov" })).path);
  assert.deepEqual([mov.width, mov.height, mov.frameRate, mov.formatName], [360, 640, 30, "mov,mp4,m4a,3gp,3g2,mj2"]);
  const webm = await probeMedia((await makeSpeechVideo({ text: TEXT, width: 320, height: 240, container: "webm" })).path);
  assert.deepEqual([webm.formatName, webm.videoCodec, webm.audioCodec], ["matroska,webm", "vp9", "opus"]);
});

test("a video without audio has hasAudio false", async () => {
  const info = await probeMedia((await makeSpeechVideo({ text: TEXT, width: 320, height: 240, audio: false })).path);
  assert.equal(info.hasAudio, false);
  assert.equal(info.audioCodec, null);
});

test("rotation metadata swaps width and height", async () => {
  const source = await makeSpeechVideo({ text: TEXT, width: 320, height: 240 });
  const rotated = join(dir, "rotated.mp4");
  await runFfmpeg({ args: ["-v", "error", "-i", source.path, "-c", "copy", "-metadata:s:v:0", "rotate=90", "-y", rotated] });
  const info = await probeMedia(rotated);
  assert.deepEqual([info.width, info.height], [240, 320]);
});

test("a WebM without a duration in its header gets it from the packets", async () => {
  const live = join(dir, "live.webm");
  // Written to a pipe, the muxer cannot seek back to store the duration, as with MediaRecorder.
  const source = await makeSpeechVideo({ text: TEXT, width: 160, height: 120, container: "webm", durationSeconds: 2 });
  const remux = streamFfmpegOutput({ args: ["-v", "error", "-i", source.path, "-c", "copy", "-f", "webm", "pipe:1"] });
  await pipeline(remux.stdout, createWriteStream(live));
  await remux.done;
  const info = await probeMedia(live);
  assert.ok(Math.abs(info.durationSeconds - 2) < 0.1, `duration ${info.durationSeconds}`);
});

test("a text file named .mp4 is UNSUPPORTED_FORMAT", async () => {
  await assert.rejects(probeMedia(await makeNonVideoFile()), isUnsupported);
});

test("an audio-only file is UNSUPPORTED_FORMAT", async () => {
  const audioOnly = join(dir, "audio.m4a");
  await runFfmpeg({ args: ["-v", "error", "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", "-y", audioOnly] });
  await assert.rejects(probeMedia(audioOnly), (error: unknown) => isUnsupported(error) && /no video stream/.test((error as Error).message));
});

test("an empty file is UNSUPPORTED_FORMAT", async () => {
  const empty = join(dir, "empty.mp4");
  await writeFile(empty, "");
  await assert.rejects(probeMedia(empty), isUnsupported);
});

test("a missing ffprobe binary is not blamed on the video", async () => {
  const video = await makeSpeechVideo({ text: TEXT, width: 320, height: 240 });
  await assert.rejects(probeMedia(video.path, { binary: join(dir, "no-ffprobe") }), (error: unknown) => !(error instanceof JobFailure));
});

test("an aborted signal rejects with its reason", async () => {
  const video = await makeSpeechVideo({ text: TEXT, width: 320, height: 240 });
  await assert.rejects(probeMedia(video.path, { signal: AbortSignal.abort() }), { name: "AbortError" });
});

test("parseFrameRate", () => {
  const cases: [string | undefined, number | null][] = [
    ["30/1", 30],
    ["30000/1001", 30000 / 1001],
    ["25", 25],
    ["0/0", null],
    ["1/0", null],
    ["N/A", null],
    [undefined, null],
  ];
  for (const [raw, expected] of cases) assert.equal(parseFrameRate(raw), expected, String(raw));
});
