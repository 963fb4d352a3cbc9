import { test } from "node:test";
import assert from "node:assert/strict";
import { PRESET_IDS } from "@caption/shared/api/preset";
import type { Style } from "@caption/shared/api/style";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { animationFor } from "./animations/animation-for.ts";
import { noAnimation } from "./animations/none.ts";
import { bandFor, type Band } from "./band-layout.ts";
import { layoutCue, type CueLayout } from "./caption-layout.ts";
import { CaptionPainter } from "./caption-painter.ts";
import { skiaFontMeasure } from "./font-measure.ts";
import type { Cue } from "./cue-builder.ts";
import { scheduleFrames } from "./frame-schedule.ts";
import { planCaptions } from "./render-video.ts";
import { SAMPLE_WORDS } from "../tools/sample-frame.ts";
import { buildStyledCues } from "./styled-cues.ts";
import { YuvaPicture } from "./yuva-picture.ts";

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
    const i = ((Math.round(frameY) - band.y) * band.width + Math.round(x) - band.x) * 4;
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
  assert.ok(band.x + box.left >= layout.block.x - outline - 2 && band.x + box.right <= layout.block.x + layout.block.width + outline + 2);
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
  const pixels = new CaptionPainter(style, { x: 0, y: 0, width: 540, height: 100 }, noAnimation).paint(null, 0);
  assert.ok(pixels.every((v) => v === 0));
});

test("update: the patch is premultiplied RGBA of the area that changed", () => {
  const style = resolveStyle({ preset: "classic", style: { text_color: "#FF0000", outline: { thickness: 0 } }, video });
  const layout = layoutCue(cue, style, skiaFontMeasure(style));
  const band = bandFor([layout.ink], video);
  const painter = new CaptionPainter(style, band, noAnimation);
  assert.equal(painter.update(null, 0), null, "the canvas starts clear");
  const patch = painter.update(layout, 1.2);
  assert.ok(patch !== null);
  assert.ok(patch.area.width <= band.width && patch.area.height <= band.height && patch.area.width * patch.area.height > 0);
  let opaque = 0;
  let edges = 0;
  for (let row = 0; row < patch.area.height; row++) {
    for (let column = 0; column < patch.area.width; column++) {
      const i = (row * patch.stride + column) * 4;
      const [r, g, b, a] = [patch.rgba[i]!, patch.rgba[i + 1]!, patch.rgba[i + 2]!, patch.rgba[i + 3]!];
      if (a === 0) continue;
      assert.ok(g === 0 && b === 0 && Math.abs(r - a) <= 1, `rgba ${r},${g},${b},${a}`);
      if (a === 255) opaque++;
      else edges++;
    }
  }
  assert.ok(opaque > 500 && edges > 50, `${opaque} opaque, ${edges} edge pixels`);
  assert.equal(painter.update(layout, 1.9), null, "a still caption needs no painting");
});

// Every preset's sample caption stepped through its animation: painting only the changed areas must leave
// the picture a full repaint gives at every step, and must paint less than the band while words animate.
// Skia anti-aliases curves crossing a clip a little differently, so a few edge pixels may differ slightly;
// anything painted in the wrong place, or left over, differs in far more.
const STEP = 1 / 30;
for (const preset of PRESET_IDS) {
  test(`update: ${preset} painted in changed areas matches full repaints`, () => {
    const style = resolveStyle({ preset, video });
    const animation = animationFor(style.animation);
    const duration = SAMPLE_WORDS.at(-1)!.end + 0.5;
    const { layouts, band } = planCaptions(buildStyledCues(SAMPLE_WORDS, style, duration), style, duration);
    const schedule = scheduleFrames(
      layouts.map((l) => ({ start: l.cue.start, end: l.cue.end, changeTimes: animation.changeTimes(l, STEP) })),
      { durationSeconds: duration, frameRate: 1 / STEP },
    );
    const incremental = new CaptionPainter(style, band, animation);
    const reference = new CaptionPainter(style, band, animation);
    const picture = new YuvaPicture(band.width, band.height);
    let partial = 0;
    for (const frame of schedule) {
      const layout = frame.cue === null ? null : layouts[frame.cue]!;
      const patch = incremental.update(layout, frame.t);
      if (patch !== null) {
        picture.update(patch);
        if (patch.area.width * patch.area.height < band.width * band.height) partial++;
      }
      const expected = paintedFromScratch(reference, layout, frame.t, band);
      const differing = visibleDifferences(picture, expected);
      assert.ok(differing <= 24, `${preset} at ${frame.t.toFixed(3)} s: ${differing} pixels differ`);
    }
    if (style.animation !== "none") assert.ok(partial > 0, `${preset}: every frame painted the whole band`);
  });
}

/** Pixels whose alpha or premultiplied luma differ by more than 8 counts between two pictures of one size. */
function visibleDifferences(a: YuvaPicture, b: YuvaPicture): number {
  const pixels = a.width * a.height;
  const alpha = a.bytes.length - pixels;
  let count = 0;
  for (let i = 0; i < pixels; i++) {
    const [alphaA, alphaB] = [a.bytes[alpha + i]!, b.bytes[alpha + i]!];
    const lumaA = ((a.bytes[i]! - 16) * alphaA) / 255;
    const lumaB = ((b.bytes[i]! - 16) * alphaB) / 255;
    if (Math.abs(alphaA - alphaB) > 8 || Math.abs(lumaA - lumaB) > 8) count++;
  }
  return count;
}

/**
 * The picture painted from scratch over the whole band (paint, not update, so no repaint-area bounds are
 * involved), converted as update's patches are: premultiplied first.
 */
function paintedFromScratch(painter: CaptionPainter, layout: CueLayout | null, t: number, band: Band): YuvaPicture {
  const straight = painter.paint(layout, t);
  const rgba = new Uint8Array(straight.length);
  for (let i = 0; i < straight.length; i += 4) {
    const alpha = straight[i + 3]!;
    for (let c = 0; c < 3; c++) rgba[i + c] = Math.round((straight[i + c]! * alpha) / 255);
    rgba[i + 3] = alpha;
  }
  const picture = new YuvaPicture(band.width, band.height);
  picture.update({ area: { x: 0, y: 0, width: band.width, height: band.height }, stride: band.width, rgba });
  return picture;
}
