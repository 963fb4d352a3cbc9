import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { emptyActiveMap, markBandChanges, markRect } from "./active-map.ts";

const FRAME = { width: 100, height: 70 };

/** The blocks holding a changed pixel, found pixel by pixel over the whole frame (the band at `at`, the rest unchanged). */
function reference(at: { x: number; y: number }, width: number, height: number, before: Uint8Array, after: Uint8Array): Uint8Array {
  const { map, cols } = emptyActiveMap(FRAME.width, FRAME.height);
  const chroma = (width / 2) * (height / 2);
  for (let i = 0; i < before.length; i++) {
    if (before[i] === after[i]) continue;
    if (i < width * height) map[(((at.y + i / width) / 16) | 0) * cols + (((at.x + (i % width)) / 16) | 0)] = 1;
    else {
      const c = (i - width * height) % chroma;
      const [cx, cy] = [at.x / 2 + (c % (width / 2)), at.y / 2 + ((c / (width / 2)) | 0)];
      map[((cy / 8) | 0) * cols + ((cx / 8) | 0)] = 1;
    }
  }
  return map;
}

test("a band's changes mark exactly the blocks holding a changed pixel, luma or chroma, wherever the band lies", () => {
  const int = (min: number, max: number) => fc.integer({ min, max });
  const halves = { x: int(0, 30), y: int(0, 20), width: int(1, 35), height: int(1, 25) };
  const band = fc.record(halves)
    .map((b) => ({ x: b.x * 2, y: b.y * 2, width: b.width * 2, height: b.height * 2 }))
    .filter((b) => b.x + b.width <= FRAME.width && b.y + b.height <= FRAME.height);
  fc.assert(fc.property(band, fc.array(fc.nat(), { maxLength: 12 }), fc.nat(255), (b, changes, seed) => {
    const size = b.width * b.height * 1.5;
    const before = Uint8Array.from({ length: size }, (_, i) => (i * 31 + seed) & 0xff);
    const after = Uint8Array.from(before);
    for (const change of changes) after[change % size] = (after[change % size]! + 1 + (change & 7)) & 0xff;
    const { map } = emptyActiveMap(FRAME.width, FRAME.height);
    markBandChanges(map, FRAME, b, { width: b.width, height: b.height, data: before }, { width: b.width, height: b.height, data: after });
    assert.deepEqual(map, reference(b, b.width, b.height, before, after));
  }));
});

test("a rectangle marks every block it touches, clipped to the frame", () => {
  const { map, rows, cols } = emptyActiveMap(FRAME.width, FRAME.height);
  assert.deepEqual([rows, cols], [5, 7]);
  markRect(map, FRAME.width, FRAME.height, { x: 15, y: 31, width: 2, height: 2 });
  markRect(map, FRAME.width, FRAME.height, { x: 90, y: 60, width: 50, height: 50 });
  markRect(map, FRAME.width, FRAME.height, { x: 10, y: 10, width: 0, height: 5 });
  const marked = [...map.entries()].filter(([, on]) => on).map(([i]) => [Math.floor(i / cols), i % cols]);
  assert.deepEqual(marked, [[1, 0], [1, 1], [2, 0], [2, 1], [3, 5], [3, 6], [4, 5], [4, 6]]);
});

test("bands that do not fit a 4:2:0 frame are refused", () => {
  const { map } = emptyActiveMap(FRAME.width, FRAME.height);
  const planes = (width: number, height: number) => ({ width, height, data: new Uint8Array(width * height * 1.5) });
  assert.throws(() => markBandChanges(map, FRAME, { x: 1, y: 0 }, planes(4, 4), planes(4, 4)), /even/);
  assert.throws(() => markBandChanges(map, FRAME, { x: 98, y: 0 }, planes(4, 4), planes(4, 4)), /outside the frame/);
  assert.throws(() => markBandChanges(map, FRAME, { x: 0, y: 0 }, planes(4, 4), planes(6, 4)), /size changed/);
  assert.throws(() => markBandChanges(map, FRAME, { x: 0, y: 0 }, planes(4, 4), { ...planes(4, 4), data: new Uint8Array(5) }), /wrong size/);
});
