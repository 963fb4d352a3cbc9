// Style overrides change the rendered sample frame exactly as the interface says, measured on its pixels.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import type { Style } from "@caption/shared/api/style";
import { getPreset } from "@caption/shared/presets/catalog";
import { BACKDROP, ORIENTATIONS, paintSampleFrame, sampleStyle, SAMPLE_TIME, SAMPLE_WORDS, type Orientation, type SampleFrame } from "../../tools/sample-frame.ts";
import type { CueLayout, PlacedWord } from "../../render/caption-layout.ts";

type Rgb = readonly [number, number, number];
interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

function frameOf(preset: PresetId, style?: Style, orientation: Orientation = "portrait"): SampleFrame & { layout: CueLayout } {
  const frame = paintSampleFrame(sampleStyle(preset, ORIENTATIONS[orientation], style));
  assert.ok(frame.layout, "a cue is on screen at the sample time");
  return { ...frame, layout: frame.layout };
}

function rgbAt(frame: SampleFrame, x: number, y: number): Rgb {
  const i = (Math.round(y) * frame.image.width + Math.round(x)) * 4;
  const d = frame.image.data;
  return [d[i]!, d[i + 1]!, d[i + 2]!];
}

const near = (a: Rgb, b: Rgb, tolerance = 0) => a.every((v, c) => Math.abs(v - b[c]!) <= tolerance);
const isInk = (rgb: Rgb) => !near(rgb, BACKDROP);

/** Pixels matching `match`: how many, and their bounding box. */
function pixels(frame: SampleFrame, match: (rgb: Rgb) => boolean): { count: number; box: Box } {
  const { width, height, data } = frame.image;
  let count = 0;
  const box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (!match([data[i]!, data[i + 1]!, data[i + 2]!])) continue;
      count++;
      box.left = Math.min(box.left, x);
      box.right = Math.max(box.right, x);
      box.top = Math.min(box.top, y);
      box.bottom = Math.max(box.bottom, y);
    }
  }
  return { count, box };
}

/** Pixels where two frames differ, and their bounding box. */
function changed(a: SampleFrame, b: SampleFrame): { count: number; box: Box } {
  let count = 0;
  const box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
  const { width, data } = a.image;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i] === b.image.data[i] && data[i + 1] === b.image.data[i + 1] && data[i + 2] === b.image.data[i + 2]) continue;
    count++;
    const x = (i / 4) % width;
    const y = Math.floor(i / 4 / width);
    box.left = Math.min(box.left, x);
    box.right = Math.max(box.right, x);
    box.top = Math.min(box.top, y);
    box.bottom = Math.max(box.bottom, y);
  }
  return { count, box };
}

function wordBox(layout: CueLayout, word: PlacedWord, margin: number): Box {
  const line = layout.lines[word.line]!;
  return { left: word.x - margin, right: word.x + word.width + margin, top: line.top - margin, bottom: line.top + layout.lineHeight + margin };
}

const inside = (inner: Box, outer: Box) =>
  inner.left >= outer.left && inner.right <= outer.right && inner.top >= outer.top && inner.bottom <= outer.bottom;

const hex = (rgb: Rgb) => `#${rgb.map((v) => v.toString(16).padStart(2, "0")).join("")}`;

test("text_color is the colour of the glyphs", () => {
  const red: Rgb = [255, 0, 0];
  assert.equal(pixels(frameOf("classic"), (rgb) => near(rgb, red)).count, 0);
  const frame = frameOf("classic", { text_color: hex(red) });
  const glyphs = pixels(frame, (rgb) => near(rgb, red));
  assert.ok(glyphs.count > 5000, `${glyphs.count} red pixels`);
  const { block } = frame.layout;
  assert.ok(inside(glyphs.box, { left: block.x, right: block.x + block.width, top: block.y, bottom: block.y + block.height }));
});

test("outline.thickness 0 removes the outline", () => {
  // White text anti-aliased over the backdrop is never darker than it; the black outline is.
  const darker = (rgb: Rgb) => rgb.every((v, c) => v < BACKDROP[c]! - 8);
  const outlined = pixels(frameOf("classic"), darker).count;
  assert.ok(outlined > 5000, `${outlined} outline pixels`);
  assert.equal(pixels(frameOf("classic", { outline: { thickness: 0 } }), darker).count, 0);
});

test("position top moves the block into the top band, 20 % of the height down", () => {
  const bottom = frameOf("classic");
  const top = frameOf("classic", { position: "top" });
  const height = ORIENTATIONS.portrait.height;
  assert.ok(pixels(bottom, isInk).box.top > height / 2);
  assert.equal(top.layout.block.y, Math.round(height * 0.2));
  const ink = pixels(top, isInk).box;
  const outline = 6;
  assert.ok(ink.top >= top.layout.block.y - outline - 1 && ink.bottom <= top.layout.block.y + top.layout.block.height + outline + 1, JSON.stringify(ink));
  assert.ok(ink.bottom < height / 2);
});

test("offset.left 100 moves the block 100 px right, and offset.top replaces the placement inset", () => {
  const base = pixels(frameOf("classic"), isInk).box;
  const moved = pixels(frameOf("classic", { offset: { left: 100 } }), isInk).box;
  assert.deepEqual(moved, { ...base, left: base.left + 100, right: base.right + 100 });
  const up = pixels(frameOf("classic", { offset: { right: 40, bottom: 400 } }), isInk).box;
  assert.deepEqual(up, { left: base.left - 40, right: base.right - 40, top: base.top + 384 - 400, bottom: base.bottom + 384 - 400 });
});

test("background box draws background.color at background.opacity behind the block", () => {
  const frame = frameOf("classic", { outline: { thickness: 0 }, background: { type: "box", color: "#00FF00", opacity: 0.5 } });
  const { block, fontPx } = frame.layout;
  const green: Rgb = [0, 255, 0];
  const expected = BACKDROP.map((v, c) => Math.round(v * 0.5 + green[c]! * 0.5)) as unknown as Rgb;
  // Just inside the padding (0.3 em each side, 0.08 em above and below), left of the text.
  assert.ok(
    near(rgbAt(frame, block.x - 0.15 * fontPx, block.y + block.height / 2), expected, 1),
    String(rgbAt(frame, block.x - 0.15 * fontPx, block.y + block.height / 2)),
  );
  assert.ok(near(rgbAt(frame, block.x + block.width + 0.15 * fontPx, block.y), expected, 1));
  assert.deepEqual(rgbAt(frame, block.x - 0.3 * fontPx - 3, block.y + block.height / 2), BACKDROP);
  const boxPixels = pixels(frame, (rgb) => near(rgb, expected, 1)).count;
  assert.ok(boxPixels > 0.5 * block.width * block.height, `${boxPixels} box pixels`);
  // The preset's type is kept when only the colour is supplied.
  assert.equal(frameOf("classic", { background: { color: "#00FF00" } }).style.background.type, "none");
});

test("shadow enabled at angle 90 is cast to the right", () => {
  const magenta: Rgb = [255, 0, 255];
  const white: Rgb = [255, 255, 255];
  const frame = frameOf("classic", { outline: { thickness: 0 }, shadow: { enabled: true, color: hex(magenta), blur: 0, distance: 12, angle: 90 } });
  const shadow = pixels(frame, (rgb) => near(rgb, magenta, 2));
  const text = pixels(frame, (rgb) => near(rgb, white, 2));
  assert.ok(shadow.count > 1000, `${shadow.count} shadow pixels`);
  assert.ok(Math.abs(shadow.box.right - text.box.right - 12) <= 1, `shadow ${JSON.stringify(shadow.box)} text ${JSON.stringify(text.box)}`);
  assert.ok(Math.abs(shadow.box.top - text.box.top) <= 1 && Math.abs(shadow.box.bottom - text.box.bottom) <= 1);
  assert.equal(pixels(frameOf("classic", { shadow: { color: hex(magenta) } }), (rgb) => near(rgb, magenta, 2)).count, 0, "a colour alone does not enable it");
});

test("text_case uppercase changes the glyphs, not the cue's words", () => {
  const plain = frameOf("classic");
  const upper = frameOf("classic", { text_case: "uppercase" });
  assert.ok(changed(plain, upper).count > 1000);
  const cueWords = upper.layout.cue.lines.flatMap((line) => line.words.map((w) => w.text));
  assert.ok(cueWords.every((text) => SAMPLE_WORDS.some((w) => w.text === text)), cueWords.join(" "));
  assert.ok(cueWords.some((text) => text !== text.toUpperCase()));
  assert.deepEqual(upper.layout.words.map((w) => w.display), cueWords.map((text) => text.toUpperCase()));
});

const HIGHLIGHT: Rgb = [0, 255, 255];

for (const preset of PRESET_IDS) {
  const supported = getPreset(preset).supported_style_fields.includes("highlight_color");
  test(`highlight_color ${supported ? "recolours only the highlighted word" : "changes nothing"} in ${preset}`, () => {
    const base = frameOf(preset);
    const recoloured = frameOf(preset, { highlight_color: hex(HIGHLIGHT) });
    const diff = changed(base, recoloured);
    if (!supported) {
      assert.equal(diff.count, 0);
      return;
    }
    const { layout } = recoloured;
    // Karaoke keeps the words already sung filled; the others mark only the word being spoken.
    const highlighted = layout.words.filter((w, i, all) =>
      preset === "karaoke" ? w.start <= SAMPLE_TIME : w.start <= SAMPLE_TIME && !(all[i + 1] !== undefined && all[i + 1]!.start <= SAMPLE_TIME),
    );
    assert.ok(highlighted.length > 0);
    // Outline, box padding and, in push, the word's 15 % growth about its centre.
    const margin = (w: PlacedWord) => 0.2 * layout.fontPx + (preset === "push" ? 0.075 * w.width : 0);
    const region = highlighted.map((w) => wordBox(layout, w, margin(w))).reduce((a, b) => ({
      left: Math.min(a.left, b.left),
      top: Math.min(a.top, b.top),
      right: Math.max(a.right, b.right),
      bottom: Math.max(a.bottom, b.bottom),
    }));
    assert.ok(diff.count > 500, `${diff.count} pixels changed`);
    assert.ok(inside(diff.box, region), `changes ${JSON.stringify(diff.box)} outside ${JSON.stringify(region)}`);
    const cyan = pixels(recoloured, (rgb) => near(rgb, HIGHLIGHT, 2));
    assert.ok(cyan.count > 300 && inside(cyan.box, region), `${cyan.count} highlight pixels`);
  });
}

test("font_size overrides text_width", () => {
  const small = frameOf("classic", { font_size: 60, text_width: "small" });
  const large = frameOf("classic", { font_size: 60, text_width: "large" });
  assert.equal(small.layout.fontPx, 60);
  assert.equal(changed(small, large).count, 0);
  assert.ok(changed(small, frameOf("classic", { text_width: "small" })).count > 1000);
  // Landscape: the same size, scaled by the landscape base scale and the width.
  assert.ok(Math.abs(frameOf("classic", { font_size: 60 }, "landscape").layout.fontPx - 60 * 0.55 * (1920 / 1080)) < 1e-9);
});
