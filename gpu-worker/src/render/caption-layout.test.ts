import { test } from "node:test";
import assert from "node:assert/strict";
import type { Style } from "@caption/shared/api/style";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import type { Cue } from "./cue-builder.ts";
import { captionGeometry, lineMeasure } from "./caption-geometry.ts";
import { layoutCue } from "./caption-layout.ts";
import type { FontMeasure } from "./font-measure.ts";

/** Every character half an em wide; line box 1 em above and 0.25 em below the baseline. */
const halfEm: FontMeasure = { width: (text, px) => text.length * px * 0.5, ascent: 1, descent: 0.25 };
const portrait = { width: 1080, height: 1920 };

const cue = (...lines: string[]): Cue => ({
  start: 0,
  end: 1,
  lines: lines.map((l) => ({ words: l.split(" ").map((text, i) => ({ text, start: i * 0.1, end: i * 0.1 + 0.1 })) })),
});
const classic = (style: Style = {}, video = portrait) => resolveStyle({ preset: "classic", style, video });

test("layoutCue: classic sits centred above the bottom inset, lines centred in the block", () => {
  const style = classic({ font_size: 100, outline: { thickness: 0 } });
  const layout = layoutCue(cue("aaaa bb", "cc"), style, halfEm);
  assert.equal(layout.fontPx, 100);
  assert.equal(layout.lineHeight, 125);
  assert.deepEqual(layout.block, { x: (1080 - 350) / 2, y: 1920 - 384 - 250, width: 350, height: 250 });
  assert.deepEqual(layout.lines.map((l) => [l.x, l.top, l.baseline, l.width]), [
    [365, 1286, 1386, 350],
    [490, 1411, 1511, 100],
  ]);
  assert.deepEqual(layout.words.map((w) => [w.display, w.x, w.width, w.line]), [
    ["aaaa", 365, 200, 0],
    ["bb", 615, 100, 0],
    ["cc", 490, 100, 1],
  ]);
  // One pixel of anti-aliasing spill on each side.
  assert.deepEqual(layout.ink, { top: 1285, bottom: 1537, left: 364, right: 716 });
});

const placements: { name: string; style: Style; block: { x: number; y: number } }[] = [
  { name: "top adds the inset from the top", style: { position: "top" }, block: { x: 365, y: 384 } },
  { name: "center is centred vertically", style: { position: "center" }, block: { x: 365, y: (1920 - 250) / 2 } },
  { name: "explicit offsets move the block", style: { position: "center", offset: { left: 30, right: 10, top: 0, bottom: 100 } }, block: { x: 385, y: (1920 - 250) / 2 - 100 } },
  { name: "left keeps the side margin", style: { horizontal_position: "left" }, block: { x: 90, y: 1286 } },
  { name: "right keeps the side margin", style: { horizontal_position: "right" }, block: { x: 1080 - 90 - 350, y: 1286 } },
  { name: "offsets never push text out of the frame, anti-aliasing included", style: { horizontal_position: "right", offset: { left: 1000, bottom: -1000 } }, block: { x: 1080 - 350 - 1, y: 1920 - 250 - 1 } },
];
for (const p of placements) {
  test(`layoutCue: ${p.name}`, () => {
    const layout = layoutCue(cue("aaaa bb", "cc"), classic({ font_size: 100, outline: { thickness: 0 }, ...p.style }), halfEm);
    assert.deepEqual({ x: layout.block.x, y: layout.block.y }, p.block);
  });
}

for (const [alignment, xs] of [
  ["left", [365, 365]],
  ["center", [365, 490]],
  ["right", [365, 615]],
] as const) {
  test(`layoutCue: text_alignment ${alignment} aligns lines within the block`, () => {
    const layout = layoutCue(cue("aaaa bb", "cc"), classic({ font_size: 100, outline: { thickness: 0 }, text_alignment: alignment }), halfEm);
    assert.deepEqual(layout.lines.map((l) => l.x), xs);
  });
}

test("layoutCue: a word too wide for the line shrinks the type until it fits", () => {
  const style = classic({ font_size: 100 });
  const layout = layoutCue(cue("abcdefghijklmnopqrstuvwxyz"), style, halfEm);
  const geometry = captionGeometry(style);
  assert.ok(layout.fontPx < 100);
  assert.ok(layout.lines[0]!.width <= geometry.maxTextWidth);
  assert.ok(layout.block.x - geometry.outlineWidth >= 0 && layout.block.x + layout.block.width + geometry.outlineWidth <= 1080);
});

test("layoutCue: too many lines for the frame shrink the type", () => {
  const layout = layoutCue(cue(...Array.from({ length: 30 }, () => "word")), classic({ font_size: 100 }), halfEm);
  assert.ok(layout.ink.top >= 0 && layout.ink.bottom <= 1920);
  assert.ok(layout.fontPx < 100);
});

test("layoutCue: text case is applied to what is drawn, not to the cue", () => {
  const layout = layoutCue(cue("hello world"), classic({ text_case: "uppercase" }), halfEm);
  assert.deepEqual(layout.words.map((w) => [w.display, w.text]), [["HELLO", "hello"], ["WORLD", "world"]]);
});

test("layoutCue: sizes follow the final scale", () => {
  const landscape = classic({ font_size: 100, outline: { thickness: 10 } }, { width: 1920, height: 1080 });
  const layout = layoutCue(cue("ab"), landscape, halfEm);
  assert.equal(layout.fontPx, 100 * landscape.final_scale);
  assert.equal(captionGeometry(landscape).outlineWidth, 10 * landscape.final_scale);
});

test("layoutCue: shadow and background widen the rows the caption paints", () => {
  const plain = layoutCue(cue("ab"), classic({ font_size: 100, outline: { thickness: 0 } }), halfEm);
  const decorated = layoutCue(
    cue("ab"),
    classic({ font_size: 100, outline: { thickness: 0 }, shadow: { enabled: true, distance: 10, blur: 4, angle: 0 }, background: { type: "box" } }),
    halfEm,
  );
  assert.ok(decorated.ink.top < decorated.block.y && decorated.ink.bottom > decorated.block.y + decorated.block.height + 10);
  assert.equal(plain.ink.bottom - plain.ink.top, plain.block.height + 2);
});

test("lineMeasure: the cue builder wraps with the drawn text case and the style's size", () => {
  const { maxLineWidth, measure } = lineMeasure(classic({ font_size: 100, text_case: "uppercase" }), {
    ...halfEm,
    width: (text, px) => (text === text.toUpperCase() ? 2 : 1) * text.length * px,
  });
  assert.equal(measure("ab cd"), 1000);
  assert.ok(maxLineWidth > 0 && maxLineWidth <= 900);
});

test("layoutCue: the frame clamp leaves room for a shadow and for glyphs overhanging their advance", () => {
  const overhanging: FontMeasure = { ...halfEm, inkBox: (text, px) => ({ left: 3, right: halfEm.width(text, px) + 7, ascent: px, descent: px / 4 }) };
  const style = (horizontal: Style) =>
    classic({ font_size: 100, outline: { thickness: 0 }, shadow: { enabled: true, blur: 0, distance: 10, angle: 90 }, ...horizontal });
  // Right: 1 px anti-aliasing + 7 px overhang + the shadow's 10 px to the right.
  const right = layoutCue(cue("aaaa bb"), style({ horizontal_position: "right", offset: { left: 1000 } }), overhanging);
  assert.equal(right.block.x, 1080 - 350 - 18);
  // Left: the shadow falls right, so only 1 px + 3 px overhang.
  const left = layoutCue(cue("aaaa bb"), style({ horizontal_position: "left", offset: { left: -1000 } }), overhanging);
  assert.equal(left.block.x, 4);
});

test("layoutCue: words are placed as the line is shaped, so the last one ends at the line's measured width", () => {
  // Spaces kern: a line is narrower than its words measured one by one.
  const kerning: FontMeasure = { ...halfEm, width: (text, px) => text.length * px * 0.5 - (text.split(" ").length - 1) * 5 };
  const layout = layoutCue(cue("aaaa bb cc"), classic({ font_size: 100, outline: { thickness: 0 } }), kerning);
  const line = layout.lines[0]!;
  const last = layout.words.at(-1)!;
  assert.equal(last.x + last.width, line.x + line.width);
  assert.equal(layout.words[0]!.x, line.x);
});
