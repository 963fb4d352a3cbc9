import assert from "node:assert/strict";
import { test } from "node:test";
import { Yuv420Frame } from "./yuv-frame.ts";

test("rows() copies a frame's rows with their chroma rows, whatever the frame's odd sizes", () => {
  const [width, height] = [7, 9];
  const frame = new Yuv420Frame(width, height);
  frame.bytes.forEach((_, i) => (frame.bytes[i] = (i * 37) % 251));
  const part = frame.rows(4, 9);
  assert.deepEqual([part.width, part.height], [7, 5]);
  assert.deepEqual([...part.y], [...frame.y.subarray(4 * 7, 9 * 7)]);
  assert.deepEqual([...part.u], [...frame.u.subarray(2 * 4, 5 * 4)], "chroma rows 2 to 4 of 4-wide chroma");
  assert.deepEqual([...part.v], [...frame.v.subarray(2 * 4, 5 * 4)]);
  part.y[0] = 255 - frame.y[4 * 7]!;
  assert.notEqual(part.y[0], frame.y[4 * 7], "a copy, not a view");
  assert.throws(() => frame.rows(3, 5), RangeError, "an odd first row would split a chroma row");
  assert.throws(() => frame.rows(4, 10), RangeError);
});
