import { test } from "node:test";
import assert from "node:assert/strict";
import { bandFor } from "./band-layout.ts";

const portrait = { width: 1080, height: 1920 };

const cases: { name: string; extents: { top: number; bottom: number }[]; frame?: { width: number; height: number }; expected: { y: number; height: number } }[] = [
  { name: "one caption, rounded out to even rows with a pixel of spill", extents: [{ top: 1301.2, bottom: 1498.7 }], expected: { y: 1300, height: 200 } },
  { name: "the union of all captions", extents: [{ top: 1400, bottom: 1500 }, { top: 1250, bottom: 1420 }, { top: 1450, bottom: 1560.5 }], expected: { y: 1248, height: 314 } },
  { name: "clamped at the top of the frame", extents: [{ top: -10, bottom: 90 }], expected: { y: 0, height: 92 } },
  { name: "clamped at the bottom of the frame", extents: [{ top: 1800, bottom: 1925 }], expected: { y: 1798, height: 122 } },
  { name: "whole frame when captions fill it", extents: [{ top: 0, bottom: 1920 }], expected: { y: 0, height: 1920 } },
  { name: "no captions: a 2-row strip", extents: [], expected: { y: 0, height: 2 } },
  { name: "a degenerate extent still gets 2 rows", extents: [{ top: 1919, bottom: 1919 }], expected: { y: 1918, height: 2 } },
];

for (const c of cases) {
  test(`bandFor: ${c.name}`, () => {
    const frame = c.frame ?? portrait;
    assert.deepEqual(bandFor(c.extents, frame), { width: frame.width, ...c.expected });
  });
}

test("bandFor: every extent lies inside the band, and the band inside the frame", () => {
  for (let seed = 1; seed < 200; seed++) {
    const rand = (n: number) => ((seed * 9301 + n * 49297) % 233280) / 233280;
    const extents = Array.from({ length: 1 + (seed % 5) }, (_, i) => {
      const top = rand(i) * 1900;
      return { top, bottom: Math.min(1920, top + rand(i + 7) * 400) };
    });
    const band = bandFor(extents, portrait);
    assert.ok(band.y >= 0 && band.y % 2 === 0 && band.y + band.height <= 1920 && band.height % 2 === 0);
    for (const e of extents) assert.ok(band.y <= e.top && e.bottom <= band.y + band.height, JSON.stringify({ e, band }));
  }
});
