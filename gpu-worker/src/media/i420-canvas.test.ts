import assert from "node:assert/strict";
import { test } from "node:test";
import { blankI420, updateBandI420 } from "./i420-canvas.ts";

test("a band's Y, U and V land at its place in each plane of the frame, the rest untouched", () => {
  const [width, height] = [8, 6];
  const frame = blankI420(width, height, { y: 16, u: 128, v: 128 });
  // A 4×2 band at (2, 4): Y 1…8, U 101…102, V 201…202.
  const band = { width: 4, height: 2, data: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 101, 102, 201, 202]) };
  updateBandI420(frame, { width, height }, { x: 2, y: 4 }, band, { x: 0, y: 0, width: 4, height: 2 }, new Uint8Array(1));
  const y = Array.from(frame.subarray(0, 48));
  assert.deepEqual(y.slice(32, 48), [16, 16, 1, 2, 3, 4, 16, 16, 16, 16, 5, 6, 7, 8, 16, 16]);
  assert.ok(y.slice(0, 32).every((v) => v === 16));
  assert.deepEqual(Array.from(frame.subarray(48, 60)), [128, 128, 128, 128, 128, 128, 128, 128, 128, 101, 102, 128]);
  assert.deepEqual(Array.from(frame.subarray(60, 72)), [128, 128, 128, 128, 128, 128, 128, 128, 128, 201, 202, 128]);
});

test("writing a band's rectangle into the frame marks exactly the blocks whose bytes changed, chroma 8×8 as luma 16×16", () => {
  const size = { width: 64, height: 48 };
  const frame = blankI420(size.width, size.height, { y: 16, u: 128, v: 128 });
  const band = { width: 40, height: 20, data: new Uint8Array(40 * 20 * 1.5) };
  band.data.fill(16, 0, 800).fill(128, 800);
  const at = { x: 10, y: 14 };
  const map = () => new Uint8Array(3 * 4);
  const first = map();
  updateBandI420(frame, size, at, band, { x: 0, y: 0, width: 40, height: 20 }, first);
  assert.ok(first.every((v) => v === 0), "the same bytes written again change nothing");
  band.data[5 * 40 + 30] = 200; // luma (40, 19): block row 1, column 2
  band.data[800 + 9 * 20 + 2] = 90; // U (7, 16) of the frame: luma (14, 32), block row 2, column 0
  const second = map();
  updateBandI420(frame, size, at, band, { x: 0, y: 0, width: 40, height: 20 }, second);
  assert.deepEqual(Array.from(second), [0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0]);
  assert.equal(frame[19 * 64 + 40], 200);
  assert.equal(frame[64 * 48 + 16 * 32 + 7], 90);
  // A rectangle of the band only: the rest of the band is not read.
  band.data[0] = 1;
  band.data[19 * 40 + 39] = 1;
  const third = map();
  updateBandI420(frame, size, at, band, { x: 2, y: 2, width: 36, height: 16 }, third);
  assert.ok(third.every((v) => v === 0) && frame[14 * 64 + 10] === 16);
  assert.throws(() => updateBandI420(frame, size, { x: 1, y: 0 }, band, { x: 0, y: 0, width: 2, height: 2 }, map()), /even/);
  assert.throws(() => updateBandI420(frame, size, at, band, { x: 0, y: 0, width: 42, height: 2 }, map()), /outside the band/);
  assert.throws(() => updateBandI420(frame, size, { x: 30, y: 0 }, band, { x: 0, y: 0, width: 2, height: 2 }, map()), /outside the frame/);
});
