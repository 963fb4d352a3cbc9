import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runFfmpeg, runFfprobe } from "./ffmpeg.ts";
import { onFrameGrid, pairAlpha, SHOW_LAST_VP9_FRAME, vp9Frames, writeAlphaWebm, type AlphaFrame, type Vp9Frame } from "./vp9-alpha-webm.ts";

const dir = await mkdtemp(join(tmpdir(), "vp9-alpha-webm-"));
test.after(() => rm(dir, { recursive: true, force: true }));

// Frames whose second byte is their time and whose first is a key frame's header byte or, with `inter`, an inter
// frame's.
const stream = (ms: number[], inter: number[] = []): Vp9Frame[] => ms.map((m) => ({ ms: m, data: Buffer.from([inter.includes(m) ? 0x84 : 0x80, m]) }));
const iterate = async function* <T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
};
const all = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};
const paired = (colour: Vp9Frame[], alpha: Vp9Frame[]) => all(pairAlpha(iterate(colour), iterate(alpha)));

test("each colour frame gets the alpha frame of its time, else the last one shown again", async () => {
  const frames = await paired(stream([0, 10, 20, 30, 40], [10, 20, 40]), stream([0, 20, 30], [20]));
  assert.deepEqual(frames.map((frame) => [frame.ms, frame.alpha.at(-1)]), [[0, 0], [10, 0x88], [20, 20], [30, 30], [40, 0x88]]);
  assert.equal(frames[1]!.alpha, SHOW_LAST_VP9_FRAME);
});

test("streams that cannot pair are refused: an alpha frame missing or left over, key frames at different times", async () => {
  await assert.rejects(paired(stream([0, 10]), stream([10])), /no alpha frame for the colour frame at 0/);
  await assert.rejects(paired(stream([0, 10], [10]), stream([0, 5])), /no alpha frame for the colour frame at 10/);
  await assert.rejects(paired(stream([0, 10]), stream([0])), /no alpha frame for the colour frame at 10/);
  await assert.rejects(paired(stream([0, 10], [10]), stream([0, 10, 20], [10])), /alpha frame at 20 ms has no colour frame/);
  await assert.rejects(paired(stream([0, 10], [10]), stream([0, 10])), /at 10 ms the colour frame is not a key frame and the alpha frame is/);
  await assert.rejects(paired(stream([0, 10]), stream([0, 10], [10])), /at 10 ms the colour frame is a key frame and the alpha frame not/);
});

test("on the frame grid: a frame at every instant, those without a change showing the last one again", async () => {
  const changes: AlphaFrame[] = [0, 66, 100].map((ms) => ({ ms, colour: Buffer.from([0x80, ms]), alpha: Buffer.from([0x80, ms]) }));
  const grid = { frames: 5, frameMs: (i: number) => Math.floor((i * 1000) / 30 + 1e-6) };
  const frames = await all(onFrameGrid(iterate(changes), grid));
  assert.deepEqual(frames.map((f) => [f.ms, f.repeated, f.colour.length]), [[0, false, 2], [33, true, 1], [66, false, 2], [100, false, 2], [133, true, 1]]);
  assert.ok(frames.filter((f) => f.repeated).every((f) => f.colour === SHOW_LAST_VP9_FRAME && f.alpha === SHOW_LAST_VP9_FRAME));
  // Nothing to show again before the first frame.
  await assert.rejects(all(onFrameGrid(iterate(changes.slice(1)), grid)), /first frame is not at 0 ms/);
});

const VP9 = ["-enc_time_base", "1:1000", "-fps_mode", "passthrough", "-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p", "-deadline", "realtime", "-cpu-used", "8",
  "-lag-in-frames", "0", "-auto-alt-ref", "0", "-g", "1000", "-f", "webm"];

test("two streams encoded apart become one constant-rate WebM with alpha that ffmpeg decodes frame for frame", async () => {
  // 10 frames at 10 fps, 33×17 (odd: VP9 codes any size). The colour changes at frames 0, 3 and 7 (the other frames
  // are not given to the encoder); the alpha at 0 and 7.
  const [width, height] = [33, 17];
  const colourAt = [0, 3, 7];
  const paths = { colour: join(dir, "colour.webm"), alpha: join(dir, "alpha.webm"), webm: join(dir, "out.webm") };
  const pick = (frames: number[]) => `select='${frames.map((f) => `eq(n\\,${f})`).join("+")}'`;
  const source = ["-f", "lavfi", "-i", `testsrc2=size=34x18:rate=10:duration=1,crop=${width}:${height}:0:0:exact=1`];
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", ...source, "-vf", pick(colourAt), ...VP9, "-lossless", "1", paths.colour] });
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", ...source, "-vf", pick([0, 7]), ...VP9, "-lossless", "1", paths.alpha] });
  assert.deepEqual((await all(vp9Frames(paths.colour))).map((f) => f.ms), [0, 300, 700]);

  const grid = { frames: 10, frameMs: (i: number) => i * 100 };
  const counts = await writeAlphaWebm(paths, { width, height, grid, frameSeconds: 0.1 });
  assert.deepEqual(counts, { colourFrames: 3, alphaFrames: 2, repeatedFrames: 7 });

  const probed = await runFfprobe({ args: ["-v", "error", "-count_packets", "-show_entries", "stream=width,height,nb_read_packets:stream_tags:format=duration", "-of", "json", paths.webm] });
  type Probed = { streams: [{ width: number; height: number; nb_read_packets: string; tags?: Record<string, string> }]; format: { duration: string } };
  const { streams: [probe], format } = JSON.parse(probed) as Probed;
  assert.deepEqual([probe.width, probe.height, probe.nb_read_packets, Number(format.duration)], [width, height, "10", 1]);
  assert.equal(Object.entries(probe.tags ?? {}).find(([key]) => key.toLowerCase() === "alpha_mode")?.[1], "1");

  // Decoded with its alpha: each frame is the last change's picture.
  const decoded = join(dir, "decoded.rgba");
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-c:v", "libvpx-vp9", "-i", paths.webm, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuva420p", decoded] });
  const expected = join(dir, "expected.yuv");
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", ...source, "-f", "rawvideo", "-pix_fmt", "yuv420p", expected] });
  const [got, want] = await Promise.all([readFile(decoded), readFile(expected)]);
  const luma = width * height;
  const yuvBytes = luma + 2 * Math.ceil(width / 2) * Math.ceil(height / 2);
  assert.equal(got.length, 10 * (yuvBytes + luma));
  for (let frame = 0; frame < 10; frame++) {
    const shown = colourAt.filter((f) => f <= frame).at(-1)!;
    const picture = got.subarray(frame * (yuvBytes + luma), frame * (yuvBytes + luma) + yuvBytes);
    assert.ok(picture.equals(want.subarray(shown * yuvBytes, (shown + 1) * yuvBytes)), `frame ${frame} shows frame ${shown}`);
    // The alpha plane is the luma of the last alpha frame.
    const alphaShown = frame < 7 ? 0 : 7;
    const alpha = got.subarray(frame * (yuvBytes + luma) + yuvBytes, (frame + 1) * (yuvBytes + luma));
    assert.ok(alpha.equals(want.subarray(alphaShown * yuvBytes, alphaShown * yuvBytes + luma)), `frame ${frame}'s alpha is frame ${alphaShown}'s luma`);
  }
});
