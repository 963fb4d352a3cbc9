import assert from "node:assert/strict";
import { test } from "node:test";
import { loadImage } from "@napi-rs/canvas";
import { decodePng } from "./rgba-image.ts";
import { encodeRgbPng, encodeRgbWebp } from "./still-encoders.ts";
import { checkerboard, frameToRgb } from "./yuv-frame.ts";

const [WIDTH, HEIGHT] = [97, 61];
const rgb = Buffer.from(Array.from({ length: WIDTH * HEIGHT * 3 }, (_, i) => (i * 7919) % 256));

test("a PNG holds the RGB pixels exactly", async () => {
  const decoded = await decodePng(encodeRgbPng(WIDTH, HEIGHT, rgb));
  assert.deepEqual([decoded.width, decoded.height], [WIDTH, HEIGHT]);
  for (let p = 0; p < WIDTH * HEIGHT; p++) {
    assert.deepEqual([...decoded.data.subarray(p * 4, p * 4 + 4)], [rgb[p * 3], rgb[p * 3 + 1], rgb[p * 3 + 2], 255], `pixel ${p}`);
  }
});

test("a WebP is a picture of the size", async () => {
  const picture = await loadImage(await encodeRgbWebp(WIDTH, HEIGHT, rgb));
  assert.deepEqual([picture.width, picture.height], [WIDTH, HEIGHT]);
});

test("the checkerboard is two neutral greys, #808080 and #5F5F5F after conversion", () => {
  const frame = checkerboard(1080, 1920);
  const pixels = frameToRgb(frame);
  const at = (x: number, y: number) => [...pixels.subarray((y * 1080 + x) * 3, (y * 1080 + x) * 3 + 3)];
  assert.deepEqual(at(0, 0), [128, 128, 128]);
  assert.deepEqual(at(28, 0), [95, 95, 95]);
  assert.deepEqual(at(28, 28), [128, 128, 128]);
});
