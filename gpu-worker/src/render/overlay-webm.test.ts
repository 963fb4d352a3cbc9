import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runFfmpeg } from "../media/ffmpeg.ts";
import { readIvf } from "../media/ivf.ts";
import { isVp9KeyFrame, writeAlphaWebm } from "../media/vp9-alpha-webm.ts";
import { AlphaTrack } from "./alpha-track.ts";
import { MatroskaFrameWriter, matroskaHeader, yuva420pFrameBytes } from "./matroska-writer.ts";
import { transparentCanvas } from "../testing/overlay-canvas.ts";
import { overlayGraph, overlayOutputArgs, overlayParts } from "./overlay-output.ts";

// The overlay WebM from a caption stream made here, as the render pipes it (band frames only where the picture
// changes, alpha planes only where the alpha changes or a key frame is due), with key frames every second.
const dir = await mkdtemp(join(tmpdir(), "overlay-webm-"));
test.after(() => rm(dir, { recursive: true, force: true }));

const media = { width: 96, height: 96, frameRate: 10, durationSeconds: 4 };
const band = { x: 20, y: 30, width: 48, height: 32 };
const KEY_INTERVAL_MS = 1000;
// 100 ms frames, none sent from 1.0 to 1.2 s (a pause: the next key frame is the first frame after it); the
// colours change every frame; the alpha (a box) moves at 0.5 s and 2.5 s and grows every frame from 3.0 s on.
const TIMES = Array.from({ length: 40 }, (_, i) => i * 100).filter((ms) => ms < 1000 || ms > 1200);
const boxRight = (ms: number): number => (ms >= 3000 ? 20 + (ms - 3000) / 50 : ms >= 2500 ? 30 : 24);
const boxLeft = (ms: number): number => (ms >= 500 ? 6 : 2);

function frame(ms: number): Uint8Array {
  const { width, height } = band;
  const bytes = new Uint8Array(yuva420pFrameBytes(band));
  const [chroma, alphaAt] = [(width / 2) * (height / 2), width * height + 2 * (width / 2) * (height / 2)];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inside = x >= boxLeft(ms) && x < boxRight(ms) && y >= 4 && y < 28;
      bytes[y * width + x] = inside ? (40 + x * 3 + ms / 20) % 236 + 16 : 16;
      bytes[alphaAt + y * width + x] = inside ? (x === boxLeft(ms) ? 128 : 255) : 0;
    }
  }
  for (let i = 0; i < chroma; i++) [bytes[width * height + i], bytes[width * height + chroma + i]] = [(ms / 10) % 200 + 20, 128];
  return bytes;
}

const stream = join(dir, "captions.mkv");
const writer = new MatroskaFrameWriter(band);
const alphaTrack = new AlphaTrack(KEY_INTERVAL_MS);
const chunks = [matroskaHeader(band, { alphaTrack: true })];
const alphaTimes: number[] = [];
for (const ms of TIMES) {
  const pixels = frame(ms);
  chunks.push(...writer.frame(ms, pixels));
  const plane = pixels.subarray(pixels.length - band.width * band.height);
  if (alphaTrack.take(ms, plane)) {
    chunks.push(...writer.alpha(plane));
    alphaTimes.push(ms);
  }
}
await writeFile(stream, Buffer.concat(chunks));
const overlay = { webmPath: join(dir, "overlay.webm"), movPath: join(dir, "overlay.mov") };
const parts = overlayParts(overlay);
await runFfmpeg({
  args: ["-hide_banner", "-loglevel", "error", "-y", "-i", stream, "-filter_complex", overlayGraph("[0:v:0]", "[0:v:1]", media, band).join(";"),
    ...overlayOutputArgs(media, parts, KEY_INTERVAL_MS)],
});
const [colour, alpha] = [readIvf(await readFile(parts.colour)), readIvf(await readFile(parts.alpha))];
const muxed = await writeAlphaWebm({ colour: parts.colour, alpha: parts.alpha, webm: overlay.webmPath }, {});

/** Each decoded frame's time (ms) and the md5 of its alpha plane, and its raw luma. */
async function decode(args: string[]): Promise<{ pts: number; alpha: string; luma: Buffer }[]> {
  const [md5, raw] = [join(dir, `${Math.random().toString(36).slice(2)}.framemd5`), join(dir, `${Math.random().toString(36).slice(2)}.y`)];
  await runFfmpeg({
    args: ["-hide_banner", "-loglevel", "error", "-y", ...args, "-filter_complex", "[0:v]format=yuva420p,split[a][y];[a]alphaextract[alpha];[y]extractplanes=y[luma]",
      "-map", "[alpha]", "-fps_mode", "passthrough", "-enc_time_base", "1:1000", "-f", "framemd5", md5, "-map", "[luma]", "-fps_mode", "passthrough", "-f", "rawvideo", raw],
  });
  const lines = (await readFile(md5, "utf8")).split("\n").filter((line) => line !== "" && !line.startsWith("#")).map((line) => line.split(",").map((field) => field.trim()));
  const luma = await readFile(raw);
  const size = media.width * media.height;
  return lines.map((fields, i) => ({ pts: Number(fields[2]), alpha: fields.at(-1)!, luma: luma.subarray(i * size, (i + 1) * size) }));
}

// The caption stream's band on the transparent canvas, losslessly: what the WebM should decode to.
const padded = await (async () => {
  const out = join(dir, "padded.mkv");
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-i", stream, "-map", "0:v:0", "-vf", transparentCanvas(media, band), "-fps_mode", "passthrough", "-c:v", "ffv1", out] });
  return decode(["-i", out]);
})();

test("the alpha is sent and encoded only where it changes and at key frames, which both streams share", () => {
  assert.equal(padded.length, TIMES.length);
  assert.deepEqual(alphaTimes, [0, 500, 1300, 2300, 2500, 3000, 3100, 3200, 3300, 3400, 3500, 3600, 3700, 3800, 3900]);
  assert.deepEqual(muxed, { colourFrames: TIMES.length, alphaFrames: alphaTimes.length });
  assert.deepEqual(alpha.frames.map((f) => f.pts), alphaTimes);
  const keys = (frames: typeof colour.frames) => frames.filter((f) => isVp9KeyFrame(f.data)).map((f) => f.pts);
  assert.deepEqual(keys(colour.frames), [0, 1300, 2300, 3300]);
  assert.deepEqual(keys(alpha.frames), [0, 1300, 2300, 3300]);
});

test("decoded, the WebM has the caption stream's alpha exactly, frame for frame, and its colours within VP9's loss", async () => {
  const webm = await decode(["-c:v", "libvpx-vp9", "-i", overlay.webmPath]);
  assert.deepEqual(webm.map((f) => [f.pts, f.alpha]), padded.map((f) => [f.pts, f.alpha]));
  let [sum, count, largest] = [0, 0, 0];
  webm.forEach((f, i) => f.luma.forEach((value, at) => {
    const delta = Math.abs(value - padded[i]!.luma[at]!);
    [sum, count, largest] = [sum + delta, count + 1, Math.max(largest, delta)];
  }));
  assert.ok(sum / count < 1 && largest <= 32, `luma differs by ${(sum / count).toFixed(3)} on average, ${largest} at most`);
});

test("seeking into the WebM past a key frame gives the right alpha: decoding starts at key frames of both streams", async () => {
  for (const seconds of [1.5, 2.7, 3.45]) {
    const webm = await decode(["-ss", String(seconds), "-c:v", "libvpx-vp9", "-i", overlay.webmPath, "-copyts"]);
    const from = padded.filter((f) => f.pts >= seconds * 1000);
    assert.deepEqual(webm.map((f) => [f.pts, f.alpha]), from.map((f) => [f.pts, f.alpha]), `from ${seconds} s`);
  }
});
