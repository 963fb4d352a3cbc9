import assert from "node:assert/strict";
import { test } from "node:test";
import { blockShift, shadowOffset } from "./geometry.ts";

const SHADOWS: [distance: number, angle: number, x: number, y: number][] = [
  [10, 0, 0, 10],
  [10, 90, 10, 0],
  [10, -90, -10, 0],
  [10, 180, 0, -10],
  [10, -180, 0, -10],
  [0, 45, 0, 0],
  [8, 45, 5.656854249, 5.656854249],
  [20, 30, 10, 17.320508076],
  [20, -150, -10, -17.320508076],
];

for (const [distance, angle, x, y] of SHADOWS) {
  test(`shadow at distance ${distance}, angle ${angle}° lies at (${x}, ${y})`, () => {
    const offset = shadowOffset({ distance, angle });
    assert.ok(Math.abs(offset.x - x) < 1e-6 && Math.abs(offset.y - y) < 1e-6, JSON.stringify(offset));
  });
}

test("axis-aligned shadows land exactly on the axis", () => {
  assert.deepEqual(shadowOffset({ distance: 7, angle: 180 }), { x: 0, y: -7 });
  assert.deepEqual(shadowOffset({ distance: 7, angle: 90 }), { x: 7, y: 0 });
  assert.ok(Object.is(shadowOffset({ distance: 7, angle: 180 }).x, 0));
});

const SHIFTS: [offset: { left: number; right: number; top: number; bottom: number }, x: number, y: number][] = [
  [{ left: 0, right: 0, top: 0, bottom: 0 }, 0, 0],
  [{ left: 30, right: 0, top: 0, bottom: 384 }, 30, -384],
  [{ left: 0, right: 50, top: 216, bottom: 0 }, -50, 216],
  [{ left: 20, right: 20, top: 10, bottom: 10 }, 0, 0],
  [{ left: -40, right: 10, top: -5, bottom: 0 }, -50, -5],
];

for (const [offset, x, y] of SHIFTS) {
  test(`offset ${JSON.stringify(offset)} moves the block by (${x}, ${y})`, () => {
    assert.deepEqual(blockShift({ offset }), { x, y });
  });
}
