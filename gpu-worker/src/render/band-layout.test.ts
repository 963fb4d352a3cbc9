import { test } from "node:test";
import assert from "node:assert/strict";
import { bandFor } from "./band-layout.ts";
import type { Edges } from "./caption-geometry.ts";

const portrait = { width: 1080, height: 1920 };
const wide = (top: number, bottom: number): Edges => ({ top, bottom, left: 100, right: 980 });

const cases: {
  name: string;
  extents: Edges[];
  frame?: { width: number; height: number };
  expected: { x: number; y: number; width: number; height: number };
}[] = [
  {
    name: "one caption, rounded out to even rows and columns with a pixel of spill",
    extents: [{ top: 1301.2, bottom: 1498.7, left: 140.5, right: 939.2 }],
    expected: { x: 138, y: 1300, width: 804, height: 200 },
  },
  {
    name: "the union of all captions",
    extents: [
      { top: 1400, bottom: 1500, left: 300, right: 700 },
      { top: 1250, bottom: 1420, left: 200, right: 600 },
      { top: 1450, bottom: 1560.5, left: 500, right: 900.5 },
    ],
    expected: { x: 198, y: 1248, width: 704, height: 314 },
  },
  { name: "clamped at the top of the frame", extents: [wide(-10, 90)], expected: { x: 98, y: 0, width: 884, height: 92 } },
  { name: "clamped at the bottom of the frame", extents: [wide(1800, 1925)], expected: { x: 98, y: 1798, width: 884, height: 122 } },
  { name: "clamped at the sides of the frame", extents: [{ top: 100, bottom: 200, left: -5, right: 1090 }], expected: { x: 0, y: 98, width: 1080, height: 104 } },
  { name: "whole frame when captions fill it", extents: [{ top: 0, bottom: 1920, left: 0, right: 1080 }], expected: { x: 0, y: 0, width: 1080, height: 1920 } },
  { name: "no captions: a 2x2 square", extents: [], expected: { x: 0, y: 0, width: 2, height: 2 } },
  { name: "a degenerate extent still gets 2 rows and columns", extents: [{ top: 1919, bottom: 1919, left: 1079, right: 1079 }], expected: { x: 1078, y: 1918, width: 2, height: 2 } },
  {
    name: "an odd-sized frame: the band stays even-sized, short of the last odd column",
    extents: [{ top: 10, bottom: 20, left: 1000, right: 1081 }],
    frame: { width: 1081, height: 721 },
    expected: { x: 998, y: 8, width: 82, height: 14 },
  },
];

for (const c of cases) {
  test(`bandFor: ${c.name}`, () => {
    assert.deepEqual(bandFor(c.extents, c.frame ?? portrait), c.expected);
  });
}

test("bandFor: every extent lies inside the band, and the band inside the frame, on even rows and columns", () => {
  for (let seed = 1; seed < 200; seed++) {
    const rand = (n: number) => ((seed * 9301 + n * 49297) % 233280) / 233280;
    const extents = Array.from({ length: 1 + (seed % 5) }, (_, i) => {
      const top = rand(i) * 1900;
      const left = rand(i + 3) * 1000;
      return { top, bottom: Math.min(1920, top + rand(i + 7) * 400), left, right: Math.min(1080, left + rand(i + 11) * 600) };
    });
    const band = bandFor(extents, portrait);
    assert.ok(band.y >= 0 && band.y % 2 === 0 && band.y + band.height <= 1920 && band.height % 2 === 0);
    assert.ok(band.x >= 0 && band.x % 2 === 0 && band.x + band.width <= 1080 && band.width % 2 === 0);
    for (const e of extents) {
      assert.ok(band.y <= e.top && e.bottom <= band.y + band.height, JSON.stringify({ e, band }));
      assert.ok(band.x <= e.left && e.right <= band.x + band.width, JSON.stringify({ e, band }));
    }
  }
});
