import assert from "node:assert/strict";
import { test } from "node:test";
import { blankI420, copyBandI420 } from "./i420-canvas.ts";

test("a band's Y, U and V land at its place in each plane of the frame, the rest untouched", () => {
  const [width, height] = [8, 6];
  const frame = blankI420(width, height, { y: 16, u: 128, v: 128 });
  // A 4×2 band at (2, 4): Y 1…8, U 101…102, V 201…202.
  copyBandI420(frame, { width, height }, { x: 2, y: 4 }, { width: 4, height: 2, data: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 101, 102, 201, 202]) });
  const y = Array.from(frame.subarray(0, 48));
  assert.deepEqual(y.slice(32, 48), [16, 16, 1, 2, 3, 4, 16, 16, 16, 16, 5, 6, 7, 8, 16, 16]);
  assert.ok(y.slice(0, 32).every((v) => v === 16));
  assert.deepEqual(Array.from(frame.subarray(48, 60)), [128, 128, 128, 128, 128, 128, 128, 128, 128, 101, 102, 128]);
  assert.deepEqual(Array.from(frame.subarray(60, 72)), [128, 128, 128, 128, 128, 128, 128, 128, 128, 201, 202, 128]);
});
