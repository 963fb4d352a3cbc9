import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { JobFailure } from "@caption/shared/errors/codes";
import { makeSpeechVideo } from "../testing/speech-video.ts";
import { decodePcm16kMono, PCM_SAMPLE_RATE, toFloat32Chunks } from "./audio-pcm.ts";
import { runFfmpeg } from "./ffmpeg.ts";

let dir = "";
let sinePath = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "audio-pcm-test-"));
  sinePath = join(dir, "sine.mka");
  // 2 s of 440 Hz at 48 kHz stereo: resampling and downmixing must both happen.
  await runFfmpeg({ args: ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=2", "-ac", "2", "-c:a", "pcm_s16le", "-y", sinePath] });
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function collect(iterable: AsyncIterable<Float32Array>): Promise<Float32Array> {
  const parts: Float32Array[] = [];
  for await (const part of iterable) parts.push(part);
  const all = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all;
}

async function* fromChunks(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

test("toFloat32Chunks regroups bytes split inside samples", async () => {
  const expected = Float32Array.from([0.5, -0.25, 1, -1, 0.125, 0]);
  const bytes = new Uint8Array(expected.buffer);
  for (const cuts of [[1], [3, 5], [4, 8], [1, 2, 3, 7, 13, 22], [23]]) {
    const chunks: Uint8Array[] = [];
    let previous = 0;
    for (const cut of [...cuts, bytes.length]) {
      chunks.push(bytes.slice(previous, cut));
      previous = cut;
    }
    assert.deepEqual(await collect(toFloat32Chunks(fromChunks(chunks))), expected, `cuts ${cuts.join(",")}`);
  }
});

test("toFloat32Chunks rejects a stream that ends inside a sample", async () => {
  await assert.rejects(collect(toFloat32Chunks(fromChunks([new Uint8Array(6)]))), /stray bytes/);
});

test("decodes a 48 kHz stereo sine to 16 kHz mono float samples", async () => {
  const samples = await collect(decodePcm16kMono(sinePath));
  assert.ok(Math.abs(samples.length - 2 * PCM_SAMPLE_RATE) <= 32, `${samples.length} samples`);
  let crossings = 0;
  let peak = 0;
  for (let i = 1; i < samples.length; i++) {
    const [a = 0, b = 0] = [samples[i - 1], samples[i]];
    if (a < 0 !== b < 0) crossings++;
    peak = Math.max(peak, Math.abs(b));
  }
  // 440 Hz crosses zero 880 times a second.
  assert.ok(Math.abs(crossings - 1760) <= 4, `${crossings} zero crossings`);
  assert.ok(peak > 0.05 && peak <= 1, `peak ${peak}`);
});

test("decodes the speech track of a video in several chunks", async () => {
  const video = await makeSpeechVideo({ text: "Every word should be on screen at the right time.", width: 320, height: 240 });
  let chunks = 0;
  let total = 0;
  let energy = 0;
  for await (const chunk of decodePcm16kMono(video.path)) {
    chunks++;
    total += chunk.length;
    for (const sample of chunk) energy += sample * sample;
  }
  assert.ok(chunks > 1);
  assert.ok(Math.abs(total / PCM_SAMPLE_RATE - video.durationSeconds) < 0.05, `${total} samples for ${video.durationSeconds} s`);
  assert.ok(energy > 0);
});

test("breaking out early stops ffmpeg and returns", async () => {
  const video = await makeSpeechVideo({ text: "Stop listening after the first chunk.", width: 320, height: 240, durationSeconds: 30 });
  let chunks = 0;
  for await (const chunk of decodePcm16kMono(video.path)) {
    assert.ok(chunk.length > 0);
    chunks++;
    break;
  }
  assert.equal(chunks, 1);
});

test("abort rejects with the signal's reason", async () => {
  const video = await makeSpeechVideo({ text: "Stop listening after the first chunk.", width: 320, height: 240, durationSeconds: 30 });
  const controller = new AbortController();
  const reason = new Error("cancelled");
  await assert.rejects(
    (async () => {
      for await (const _chunk of decodePcm16kMono(video.path, { signal: controller.signal })) controller.abort(reason);
    })(),
    (error: unknown) => error === reason,
  );
});

test("limitSeconds stops the decode at the inspected duration", async () => {
  const samples = await collect(decodePcm16kMono(sinePath, { limitSeconds: 0.5 }));
  assert.ok(Math.abs(samples.length - PCM_SAMPLE_RATE / 2) <= 32, `${samples.length} samples`);
});

const undecodable = (error: unknown) => error instanceof JobFailure && error.code === "UNSUPPORTED_FORMAT" && !error.message.includes(dir);

test("a file without audio is the upload's fault: UNSUPPORTED_FORMAT, with no server path in the message", async () => {
  const silent = await makeSpeechVideo({ text: "No sound.", width: 160, height: 120, audio: false });
  await assert.rejects(collect(decodePcm16kMono(silent.path)), (error: unknown) => error instanceof JobFailure && error.code === "UNSUPPORTED_FORMAT");
});

test("a file that is not what its magic bytes say fails UNSUPPORTED_FORMAT without its path", async () => {
  const fake = join(dir, "fake.mp4");
  await writeFile(fake, Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from("ftypisom"), Buffer.alloc(4096, 7)]));
  await assert.rejects(collect(decodePcm16kMono(fake)), undecodable);
  const playlist = join(dir, "list.mp4");
  await writeFile(playlist, "#EXTM3U\n#EXTINF:1,\nsegment.ts\n");
  await assert.rejects(collect(decodePcm16kMono(playlist)), (error: unknown) => undecodable(error) && /HLS playlist/.test((error as Error).message));
});
