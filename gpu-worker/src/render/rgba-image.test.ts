import { test } from "node:test";
import assert from "node:assert/strict";
import { decodePng, downscale, encodePng } from "./rgba-image.ts";

test("downscale averages each block, edge blocks over the pixels they have", () => {
  // 3x2 image: left 2x2 block is black and white columns, the right 1x2 block is red.
  const data = new Uint8ClampedArray([0, 0, 0, 255, 255, 255, 255, 255, 200, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 255, 100, 0, 0, 255]);
  const small = downscale({ width: 3, height: 2, data }, 2);
  assert.deepEqual([small.width, small.height], [2, 1]);
  assert.deepEqual([...small.data], [128, 128, 128, 255, 150, 0, 0, 255]);
  assert.throws(() => downscale({ width: 1, height: 1, data: new Uint8ClampedArray(4) }, 1.5), RangeError);
});

test("an opaque image survives a PNG round trip exactly", async () => {
  const data = new Uint8ClampedArray(16 * 9 * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 37) % 256));
  const decoded = await decodePng(encodePng({ width: 16, height: 9, data }));
  assert.deepEqual([decoded.width, decoded.height], [16, 9]);
  assert.deepEqual(decoded.data, data);
});
