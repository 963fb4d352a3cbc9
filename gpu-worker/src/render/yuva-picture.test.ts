import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runFfmpeg } from "../media/ffmpeg.ts";
import { YuvaPicture, type PixelPatch } from "./yuva-picture.ts";

/** Premultiplied RGBA of `width`x`height`, every pixel from `pixel(x, y)` as straight [r, g, b, a]. */
function premultiplied(width: number, height: number, pixel: (x: number, y: number) => readonly number[]): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [r = 0, g = 0, b = 0, a = 0] = pixel(x, y);
      data.set([Math.round((r * a) / 255), Math.round((g * a) / 255), Math.round((b * a) / 255), a], (y * width + x) * 4);
    }
  }
  return data;
}

function planes(picture: YuvaPicture) {
  const { width, height, bytes } = picture;
  const luma = width * height;
  const chroma = luma / 4;
  return {
    y: (x: number, row: number) => bytes[row * width + x]!,
    u: (x: number, row: number) => bytes[luma + (row >> 1) * (width / 2) + (x >> 1)]!,
    v: (x: number, row: number) => bytes[luma + chroma + (row >> 1) * (width / 2) + (x >> 1)]!,
    a: (x: number, row: number) => bytes[luma + 2 * chroma + row * width + x]!,
  };
}

/** The whole picture's pixels as a patch. */
const whole = (picture: YuvaPicture, rgba: Uint8Array): PixelPatch => ({
  area: { x: 0, y: 0, width: picture.width, height: picture.height },
  stride: picture.width,
  rgba,
});

test("a new picture is fully transparent", () => {
  const picture = new YuvaPicture(6, 4);
  const p = planes(picture);
  assert.equal(picture.bytes.length, 24 + 6 + 6 + 24);
  for (let y = 0; y < 4; y++) for (let x = 0; x < 6; x++) assert.deepEqual([p.y(x, y), p.u(x, y), p.v(x, y), p.a(x, y)], [16, 128, 128, 0]);
});

test("opaque colours convert as ffmpeg converts RGB for the overlay (BT.601, limited range)", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "yuva-picture-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // 8x8 blocks of one colour each, so ffmpeg's chroma filter and the block mean agree away from block edges.
  const colours = [[255, 255, 255], [0, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 212, 0], [139, 61, 255], [124, 58, 237]];
  const width = 8 * colours.length;
  const height = 8;
  const straight = (x: number) => [...colours[Math.floor(x / 8)]!, 255];
  const rgba = premultiplied(width, height, straight);
  const picture = new YuvaPicture(width, height);
  picture.update(whole(picture, rgba));

  const rgbaPath = join(dir, "in.rgba");
  await writeFile(rgbaPath, rgba);
  const outPath = join(dir, "out.yuva");
  await runFfmpeg({
    args: ["-v", "error", "-f", "rawvideo", "-pix_fmt", "rgba", "-s", `${width}x${height}`, "-i", rgbaPath, "-pix_fmt", "yuva420p", "-f", "rawvideo", outPath],
  });
  const expected = await readFile(outPath);
  const ours = planes(picture);
  const luma = width * height;
  const chroma = luma / 4;
  colours.forEach((colour, i) => {
    const x = i * 8 + 4;
    const y = 4;
    const chromaAt = (y / 2) * (width / 2) + x / 2;
    const reference = [expected[y * width + x]!, expected[luma + chromaAt]!, expected[luma + chroma + chromaAt]!];
    const got = [ours.y(x, y), ours.u(x, y), ours.v(x, y)];
    got.forEach((value, c) => assert.ok(Math.abs(value - reference[c]!) <= 1, `colour ${colour.join(",")}: ours ${got.join(",")} ffmpeg ${reference.join(",")}`));
    assert.equal(ours.a(x, y), 255);
  });
});

test("premultiplied input: a half-transparent pixel has its colour's luma and its own alpha", () => {
  const picture = new YuvaPicture(2, 2);
  picture.update(whole(picture, premultiplied(2, 2, (x) => (x === 0 ? [255, 212, 0, 255] : [255, 212, 0, 128]))));
  const p = planes(picture);
  assert.ok(Math.abs(p.y(1, 0) - p.y(0, 0)) <= 1, `${p.y(1, 0)} vs ${p.y(0, 0)}`);
  assert.deepEqual([p.a(0, 0), p.a(1, 0)], [255, 128]);
});

test("chroma is the alpha-weighted mean of its block: transparent pixels do not tint it", () => {
  const red = new YuvaPicture(2, 2);
  red.update(whole(red, premultiplied(2, 2, () => [255, 0, 0, 255])));
  const edge = new YuvaPicture(2, 2);
  edge.update(whole(edge, premultiplied(2, 2, (x, y) => (x === 0 && y === 0 ? [255, 0, 0, 255] : [0, 0, 0, 0]))));
  assert.deepEqual([planes(edge).u(0, 0), planes(edge).v(0, 0)], [planes(red).u(0, 0), planes(red).v(0, 0)]);
  assert.deepEqual([planes(edge).y(1, 1), planes(edge).a(1, 1)], [16, 0]);
});

test("only the patch's area is converted, read at the patch's stride", () => {
  const picture = new YuvaPicture(8, 6);
  // A 6-pixel-wide canvas whose top left 4x4 pixels are the area: white, the rest red.
  const canvas = premultiplied(6, 5, (x, y) => (x < 4 && y < 4 ? [255, 255, 255, 255] : [255, 0, 0, 255]));
  picture.update({ area: { x: 2, y: 2, width: 4, height: 4 }, stride: 6, rgba: canvas });
  const p = planes(picture);
  for (let y = 0; y < 6; y++) {
    for (let x = 0; x < 8; x++) {
      const inside = x >= 2 && x < 6 && y >= 2 && y < 6;
      assert.equal(p.a(x, y), inside ? 255 : 0, `alpha at ${x},${y}`);
      assert.equal(p.y(x, y), inside ? 235 : 16, `luma at ${x},${y}`);
      assert.equal(p.u(x, y), 128, `chroma at ${x},${y}`);
    }
  }
});

test("a transparent patch clears what was there", () => {
  const picture = new YuvaPicture(4, 2);
  picture.update(whole(picture, premultiplied(4, 2, () => [0, 255, 0, 255])));
  picture.update(whole(picture, new Uint8Array(4 * 2 * 4)));
  assert.deepEqual([...picture.bytes], [...new YuvaPicture(4, 2).bytes]);
});

test("odd sizes are refused: 4:2:0 chroma pairs rows and columns", () => {
  assert.throws(() => new YuvaPicture(5, 4), RangeError);
  assert.throws(() => new YuvaPicture(4, 3), RangeError);
});

test("rejects areas that split 2x2 blocks or leave the picture, and too few pixels", () => {
  const picture = new YuvaPicture(8, 6);
  const rgba = new Uint8Array(8 * 6 * 4);
  assert.throws(() => picture.update({ area: { x: 1, y: 0, width: 2, height: 2 }, stride: 8, rgba }), RangeError);
  assert.throws(() => picture.update({ area: { x: 0, y: 0, width: 3, height: 2 }, stride: 8, rgba }), RangeError);
  assert.throws(() => picture.update({ area: { x: 0, y: 0, width: 2, height: 3 }, stride: 8, rgba }), RangeError);
  assert.throws(() => picture.update({ area: { x: 6, y: 4, width: 4, height: 2 }, stride: 8, rgba }), RangeError);
  assert.throws(() => picture.update({ area: { x: 0, y: 0, width: 8, height: 6 }, stride: 8, rgba: rgba.subarray(4) }), RangeError);
});
