import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runFfmpeg, runFfprobe } from "../media/ffmpeg.ts";
import { encodeSize } from "../media/ebml.ts";
import { MatroskaFrameWriter, matroskaHeader, yuva420pFrameBytes } from "./matroska-writer.ts";

for (const [size, hex] of [
  [0, "80"],
  [126, "fe"],
  [127, "407f"],
  [16_382, "7ffe"],
  [16_383, "203fff"],
  [1_728_004, "3a5e04"],
] as const) {
  test(`encodeSize(${size}) is ${hex}`, () => assert.equal(encodeSize(size).toString("hex"), hex));
}

test("yuva420p frames: full-size Y and A, chroma at half size rounded up", () => {
  assert.equal(yuva420pFrameBytes({ width: 4, height: 2 }), 8 + 2 + 2 + 8);
  assert.equal(yuva420pFrameBytes({ width: 5, height: 3 }), 15 + 6 + 6 + 15);
});

test("MatroskaFrameWriter rejects times that do not increase and frames of the wrong size", () => {
  const writer = new MatroskaFrameWriter({ width: 2, height: 2 });
  writer.frame(10, new Uint8Array(10));
  assert.throws(() => writer.frame(10, new Uint8Array(10)), RangeError);
  assert.throws(() => writer.frame(11.5, new Uint8Array(10)), RangeError);
  assert.throws(() => writer.frame(20, new Uint8Array(16)), RangeError);
});

test("ffmpeg reads the stream back: size, yuva420p planes, timestamps (also across Clusters)", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "mkv-writer-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const width = 6;
  const height = 4;
  const times = [0, 40, 40_000];
  const frames = times.map((_, f) => Uint8Array.from({ length: yuva420pFrameBytes({ width, height }) }, (_, i) => (i * 7 + f * 50) % 256));

  const writer = new MatroskaFrameWriter({ width, height });
  const chunks = [matroskaHeader({ width, height }), ...frames.flatMap((pixels, f) => writer.frame(times[f]!, pixels))];
  const mkv = join(dir, "frames.mkv");
  await writeFile(mkv, Buffer.concat(chunks));

  const probe = JSON.parse(
    await runFfprobe({ args: ["-v", "error", "-show_streams", "-show_frames", "-of", "json", mkv] }),
  ) as { streams: { codec_name: string; width: number; height: number; pix_fmt: string }[]; frames: { pts: number }[] };
  const streams = probe.streams.map((s) => ({ codec: s.codec_name, width: s.width, height: s.height, pix_fmt: s.pix_fmt }));
  assert.deepEqual(streams, [{ codec: "rawvideo", width, height, pix_fmt: "yuva420p" }]);
  assert.deepEqual(probe.frames.map((f) => f.pts), times);

  const raw = join(dir, "frames.yuva");
  await runFfmpeg({ args: ["-v", "error", "-i", mkv, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuva420p", raw] });
  assert.deepEqual(new Uint8Array(await readFile(raw)), Uint8Array.from(frames.flatMap((f) => [...f])));
});

test("an alpha track beside the frames: gray planes at their frames' times, read back by ffmpeg as a second stream", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "mkv-writer-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const [width, height] = [4, 2];
  const writer = new MatroskaFrameWriter({ width, height });
  assert.throws(() => writer.alpha(new Uint8Array(8)), /needs its frame written first/);
  const frame = (value: number) => new Uint8Array(yuva420pFrameBytes({ width, height })).fill(value);
  const planes = [Uint8Array.from({ length: 8 }, (_, i) => i * 30), Uint8Array.from({ length: 8 }, (_, i) => 255 - i)];
  const chunks = [matroskaHeader({ width, height }, { alphaTrack: true })];
  chunks.push(...writer.frame(0, frame(1)), ...writer.alpha(planes[0]!), ...writer.frame(40, frame(2)));
  chunks.push(...writer.frame(80, frame(3)), ...writer.alpha(planes[1]!));
  assert.throws(() => writer.alpha(new Uint8Array(9)), /9 bytes, expected 8/);
  const mkv = join(dir, "alpha.mkv");
  await writeFile(mkv, Buffer.concat(chunks));
  const probe = JSON.parse(await runFfprobe({ args: ["-v", "error", "-show_streams", "-show_packets", "-of", "json", mkv] })) as {
    streams: { pix_fmt: string }[];
    packets: { stream_index: number; pts: number }[];
  };
  assert.deepEqual(probe.streams.map((s) => s.pix_fmt), ["yuva420p", "gray"]);
  assert.deepEqual(probe.packets.filter((p) => p.stream_index === 1).map((p) => p.pts), [0, 80]);
  const raw = join(dir, "alpha.gray");
  await runFfmpeg({ args: ["-v", "error", "-i", mkv, "-map", "0:v:1", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", raw] });
  assert.deepEqual(new Uint8Array(await readFile(raw)), Uint8Array.from([...planes[0]!, ...planes[1]!]));
});

test("a mark track running ahead of the frames: ffmpeg reads each track's times in order, across Clusters both ways", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "mkv-writer-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const [width, height] = [4, 2];
  const writer = new MatroskaFrameWriter({ width, height });
  const frame = new Uint8Array(yuva420pFrameBytes({ width, height }));
  // Marks for a cue come before its frames; a long silence puts the next marks beyond a Cluster's reach.
  const chunks = [matroskaHeader({ width, height }, { markTrack: true }), ...writer.mark(50, true), ...writer.mark(1000, false)];
  chunks.push(...writer.frame(0, frame), ...writer.frame(500, frame), ...writer.mark(60_000, false), ...writer.frame(1000, frame));
  assert.deepEqual(writer.mark(60_000, false), [], "a pass saying nothing new is left out");
  assert.throws(() => writer.mark(59_000, true), /not after the mark at 60000 ms/);
  chunks.push(...writer.mark(60_010, true), ...writer.frame(61_000, frame));
  const mkv = join(dir, "marks.mkv");
  await writeFile(mkv, Buffer.concat(chunks));
  const probe = JSON.parse(await runFfprobe({ args: ["-v", "error", "-show_streams", "-show_packets", "-of", "json", mkv] })) as {
    streams: { pix_fmt: string; width: number }[];
    packets: { stream_index: number; pts: number }[];
  };
  assert.deepEqual(probe.streams.map((s) => [s.pix_fmt, s.width]), [["yuva420p", width], ["gray", 2]]);
  assert.deepEqual(probe.packets.filter((p) => p.stream_index === 0).map((p) => p.pts), [0, 500, 1000, 61_000]);
  assert.deepEqual(probe.packets.filter((p) => p.stream_index === 1).map((p) => p.pts), [50, 1000, 60_000, 60_010]);
  const raw = join(dir, "marks.gray");
  await runFfmpeg({ args: ["-v", "error", "-i", mkv, "-map", "0:v:1", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", raw] });
  assert.deepEqual([...(await readFile(raw))], [255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255]);
});
