import { test } from "node:test";
import assert from "node:assert/strict";
import type { Style } from "@caption/shared/api/style";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { noAnimation } from "./animations/none.ts";
import { bandFor } from "./band-layout.ts";
import { layoutCue, type CueLayout } from "./caption-layout.ts";
import { CaptionPainter, skiaFontMeasure } from "./caption-painter.ts";
import type { Cue } from "./cue-builder.ts";

const video = { width: 540, height: 960 };
const cue: Cue = {
  start: 1,
  end: 2,
  lines: [{ words: [{ text: "Hello", start: 1, end: 1.4 }, { text: "world", start: 1.5, end: 2 }] }],
};

function paint(style: Style) {
  const resolved = resolveStyle({ preset: "classic", style, video });
  const layout = layoutCue(cue, resolved, skiaFontMeasure(resolved));
  const band = bandFor([layout.ink], video);
  const pixels = new CaptionPainter(resolved, band, noAnimation).paint(layout, 1.2);
  const at = (x: number, frameY: number) => {
    const i = ((Math.round(frameY) - band.y) * band.width + Math.round(x)) * 4;
    return [pixels[i]!, pixels[i + 1]!, pixels[i + 2]!, pixels[i + 3]!];
  };
  return { layout, band, pixels, at };
}

function alphaBox(pixels: Uint8ClampedArray, width: number) {
  let top = Infinity, bottom = -1, left = Infinity, right = -1;
  for (let i = 0; i < pixels.length / 4; i++) {
    if (pixels[i * 4 + 3]! === 0) continue;
    const x = i % width, y = Math.floor(i / width);
    top = Math.min(top, y); bottom = Math.max(bottom, y); left = Math.min(left, x); right = Math.max(right, x);
  }
  return { top, bottom, left, right };
}

/** Counts of opaque pixels by colour class. */
function census(pixels: Uint8ClampedArray) {
  let white = 0, dark = 0, partial = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    const [r, g, b, a] = [pixels[i]!, pixels[i + 1]!, pixels[i + 2]!, pixels[i + 3]!];
    if (a === 255 && r > 240 && g > 240 && b > 240) white++;
    else if (a === 255 && r < 15 && g < 15 && b < 15) dark++;
    else if (a > 0 && a < 255) partial++;
  }
  return { white, dark, partial };
}

test("classic: white text over a dark outline, inside the band, lower part of the frame", () => {
  const { layout, band, pixels } = paint({});
  const counts = census(pixels);
  assert.ok(counts.white > 1000, `white ${counts.white}`);
  assert.ok(counts.dark > 500, `dark ${counts.dark}`);
  assert.ok(band.y > video.height / 2);
  const box = alphaBox(pixels, band.width);
  assert.ok(box.top >= 0 && box.bottom < band.height);
  // Nothing far outside the block plus the outline.
  const outline = 6 * (video.width / 1080);
  assert.ok(box.left >= layout.block.x - outline - 2 && box.right <= layout.block.x + layout.block.width + outline + 2);
});

test("classic: pixels are straight alpha (edge pixels of white text stay white)", () => {
  const { pixels } = paint({ outline: { thickness: 0 } });
  let edges = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    const a = pixels[i + 3]!;
    if (a > 20 && a < 235) {
      edges++;
      assert.ok(pixels[i]! > 240 && pixels[i + 1]! > 240 && pixels[i + 2]! > 240, `rgba ${pixels.slice(i, i + 4).join(",")}`);
    }
  }
  assert.ok(edges > 50);
});

test("text_color and outline colour are what gets drawn", () => {
  const { pixels } = paint({ text_color: "#FF0000", outline: { color: "#0000FF", thickness: 8 } });
  let red = 0, blue = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    if (pixels[i + 3] !== 255) continue;
    if (pixels[i]! > 240 && pixels[i + 1]! < 15 && pixels[i + 2]! < 15) red++;
    if (pixels[i]! < 15 && pixels[i + 1]! < 15 && pixels[i + 2]! > 240) blue++;
  }
  assert.ok(red > 500 && blue > 500, `red ${red} blue ${blue}`);
});

test("outline thickness 0 draws no outline", () => {
  assert.equal(census(paint({ outline: { thickness: 0 } }).pixels).dark, 0);
});

for (const type of ["box", "box-rounded", "line", "line-rounded"] as const) {
  test(`background ${type}: its colour at its opacity behind the block`, () => {
    const { layout, at } = paint({ outline: { thickness: 0 }, background: { type, color: "#00FF00", opacity: 0.5 } });
    // Just inside the padded block's left edge, mid-height: background only.
    const [r, g, b, a] = at(layout.block.x - 4, layout.block.y + layout.block.height / 2);
    assert.deepEqual([r, g, b], [0, 255, 0]);
    assert.ok(Math.abs(a! - 128) <= 1, `alpha ${a}`);
    const corner = at(layout.block.x - layout.fontPx * 0.3 + 1, layout.block.y - layout.fontPx * 0.08 + 1)[3]!;
    if (type.endsWith("rounded")) assert.equal(corner, 0);
    else assert.ok(corner > 100);
  });
}

test("shadow: cast below the text when the angle is 0", () => {
  const withShadow = paint({ outline: { thickness: 0 }, shadow: { enabled: true, color: "#000000", blur: 0, distance: 10, angle: 0 } });
  const without = paint({ outline: { thickness: 0 } });
  const darkBelow = (p: ReturnType<typeof paint>, l: CueLayout) => {
    let count = 0;
    for (let x = Math.floor(l.block.x); x < l.block.x + l.block.width; x++) {
      const [r, , , a] = p.at(x, l.lines[0]!.baseline + 4);
      if (a! > 200 && r! < 30) count++;
    }
    return count;
  };
  assert.ok(darkBelow(withShadow, withShadow.layout) > 10);
  assert.equal(darkBelow(without, without.layout), 0);
});

test("uppercase text case changes the drawing", () => {
  const lower = paint({}).pixels;
  const upper = paint({ text_case: "uppercase" }).pixels;
  assert.notDeepEqual(census(lower), census(upper));
});

test("nothing to show: a fully transparent band", () => {
  const style = resolveStyle({ preset: "classic", video });
  const pixels = new CaptionPainter(style, { y: 0, width: 540, height: 100 }, noAnimation).paint(null, 0);
  assert.ok(pixels.every((v) => v === 0));
});
