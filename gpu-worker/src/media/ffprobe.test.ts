import assert from "node:assert/strict";
import { createWriteStream, existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { after, before, test } from "node:test";
import { Value } from "@sinclair/typebox/value";
import { JobFailure } from "@caption/shared/errors/codes";
import { accessTimeCanary, accessTimesWork, fifoCanary } from "../testing/canary.ts";
import { dashManifest, ffconcatScript, hlsPlaylist, truncateAfterIndex, understateMp4Duration } from "../testing/hostile-media.ts";
import { makeNonVideoFile, makeSpeechVideo } from "../testing/speech-video.ts";
import { FfmpegError, runFfmpeg, runFfprobe, streamFfmpegOutput } from "./ffmpeg.ts";
import { parseFrameRate, probeMedia } from "./ffprobe.ts";
import { MediaInfoSchema } from "./media-info.ts";
import { sourceInputArgs } from "./source-input.ts";

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
  assert.deepEqual({ ...info, durationSeconds: undefined, declaredDurationSeconds: undefined, videoFrames: undefined, sizeBytes: undefined }, {
    container: "mov",
    formatName: "mov,mp4,m4a,3gp,3g2,mj2",
    durationSeconds: undefined,
    declaredDurationSeconds: undefined,
    width: 640,
    height: 360,
    frameRate: 25,
    videoFrames: undefined,
    videoStreamIndex: 0,
    audioStreamIndex: 1,
    videoCodec: "h264",
    // Untagged, as lavfi's picture is: treated as SDR.
    colorTransfer: null,
    audioCodec: "aac",
    hasAudio: true,
    sizeBytes: undefined,
  });
  assert.ok(Math.abs(info.durationSeconds - video.durationSeconds) < 0.05);
  assert.ok(Math.abs((info.declaredDurationSeconds ?? 0) - video.durationSeconds) < 0.05);
  assert.ok(Math.abs(info.videoFrames - video.durationSeconds * 25) <= 1, `${info.videoFrames} frames`);
  assert.ok(info.sizeBytes > 0);
});

test("probes a portrait MOV and a WebM", async () => {
  const mov = await probeMedia((await makeSpeechVideo({ text: TEXT, width: 360, height: 640, container: "mov" })).path);
  assert.deepEqual([mov.width, mov.height, mov.frameRate, mov.formatName], [360, 640, 30, "mov,mp4,m4a,3gp,3g2,mj2"]);
  const webm = await probeMedia((await makeSpeechVideo({ text: TEXT, width: 320, height: 240, container: "webm" })).path);
  assert.deepEqual([webm.container, webm.formatName, webm.videoCodec, webm.audioCodec], ["matroska", "matroska,webm", "vp9", "opus"]);
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

test("a header that understates the duration changes nothing: the streams' packets count", async () => {
  const source = await makeSpeechVideo({ text: TEXT, width: 160, height: 120, fps: 10, durationSeconds: 4 });
  for (const boxes of [["mvhd"], ["mvhd", "tkhd", "mdhd"]] as const) {
    const lying = join(dir, `lying-${boxes.join("-")}.mp4`);
    await understateMp4Duration(source.path, lying, 1, boxes);
    const info = await probeMedia(lying);
    assert.ok(Math.abs((info.declaredDurationSeconds ?? 0) - 1) < 0.01, `${boxes.join("+")} claims ${info.declaredDurationSeconds}`);
    assert.ok(Math.abs(info.durationSeconds - source.durationSeconds) < 0.05, `${boxes.join("+")}: ${info.durationSeconds} s, really ${source.durationSeconds} s`);
    assert.equal(info.videoFrames, 40);
  }
});

test("a file cut after its index counts only the samples that are there", async () => {
  const source = await makeSpeechVideo({ text: TEXT, width: 160, height: 120, fps: 10, durationSeconds: 4 });
  const cut = join(dir, "cut.mp4");
  await runFfmpeg({ args: ["-v", "error", "-i", source.path, "-c", "copy", "-movflags", "+faststart", "-y", cut] });
  await truncateAfterIndex(cut, 0.5);
  const info = await probeMedia(cut);
  assert.ok(Math.abs((info.declaredDurationSeconds ?? 0) - source.durationSeconds) < 0.05, "the index still claims the whole length");
  assert.ok(info.durationSeconds > 0.5 && info.durationSeconds < 3.5, `${info.durationSeconds} s readable`);
  assert.ok(info.videoFrames < 40);
});

test("playlists, manifests and scripts are refused before ffprobe runs, and nothing they name is opened", async () => {
  const ran = join(dir, "ffprobe-ran");
  const recordingFfprobe = join(dir, "ffprobe");
  await writeFile(recordingFfprobe, `#!/bin/sh\ntouch '${ran}'\nexec ffprobe "$@"\n`, { mode: 0o755 });
  const canary = await fifoCanary(join(dir, "refused-canary.ts"));
  try {
    for (const [name, text, kind] of [
      ["hls.mp4", hlsPlaylist(canary.path), /HLS playlist/],
      ["live.mp4", hlsPlaylist(canary.path, { live: true }), /HLS playlist/],
      ["dash.mp4", dashManifest(canary.path), /XML document/],
      ["concat.mp4", ffconcatScript(canary.path), /ffconcat script/],
    ] as const) {
      const path = join(dir, name);
      await writeFile(path, text);
      await assert.rejects(
        probeMedia(path, { binary: recordingFfprobe }),
        (error: unknown) => isUnsupported(error) && kind.test((error as Error).message),
        name,
      );
    }
    assert.equal(existsSync(ran), false, "ffprobe never ran");
    assert.equal(await canary.touched(), false);
  } finally {
    canary.close();
  }
});

test("handed a playlist, manifest or script anyway, ffprobe with a source's arguments opens nothing else and does not wait", async () => {
  const fifo = await fifoCanary(join(dir, "segment.ts"));
  const file = await accessTimeCanary(join(dir, "segment.mp4"), await readFile((await makeSpeechVideo({ text: TEXT, width: 160, height: 120 })).path));
  try {
    const cases = [
      ["hls", hlsPlaylist(fifo.path)],
      ["live hls", hlsPlaylist(file.path, { live: true })],
      ["dash", dashManifest(file.path)],
      ["ffconcat", ffconcatScript(file.path)],
    ] as const;
    for (const [name, text] of cases) {
      const path = join(dir, `${name.replace(" ", "-")}.txt`);
      await writeFile(path, text);
      for (const container of ["mov", "matroska"] as const) {
        await assert.rejects(runFfprobe({ args: ["-v", "error", "-show_format", ...sourceInputArgs({ path, container })], timeoutMs: 10_000 }), (error: unknown) => error instanceof FfmpegError && error.exitCode === 1 && !error.timedOut, `${name} as ${container}`);
      }
    }
    assert.equal(await fifo.touched(), false, "the FIFO named by the playlist was not opened");
    if (await accessTimesWork(join(dir, "atime-check"))) assert.equal(await file.touched(), false, "the file named by the others was not read");
    // The canary works: ffprobe left to probe the playlist itself follows it to the segment.
    const plain = join(dir, "plain-hls.m3u8");
    await writeFile(plain, hlsPlaylist(fifo.path));
    await runFfprobe({ args: ["-v", "error", "-show_format", plain], timeoutMs: 10_000 }).catch(() => undefined);
    assert.equal(await fifo.touched(), true, "without the source arguments ffprobe opens the segment");
  } finally {
    fifo.close();
  }
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
