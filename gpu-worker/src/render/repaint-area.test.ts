import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { plainLook, type CaptionFrame } from "./animations/caption-animation.ts";
import { bandFor, type Band, type PixelArea } from "./band-layout.ts";
import { captionGeometry } from "./caption-geometry.ts";
import { layoutCue, type CueLayout } from "./caption-layout.ts";
import type { FontMeasure } from "./font-measure.ts";
import { repaintArea, wordBounds, type CaptionState } from "./repaint-area.ts";

/** Every character half an em wide; line box 1 em above and 0.25 em below the baseline. */
const halfEm: FontMeasure = { width: (text, px) => text.length * px * 0.5, ascent: 1, descent: 0.25 };
const video = { width: 1080, height: 1920 };
const style = resolveStyle({ preset: "classic", video });
const geometry = captionGeometry(style);
const words = ["first", "middle", "last"].map((text, i) => ({ text, start: i, end: i + 1 }));
const layout = layoutCue({ start: 0, end: 3, lines: [{ words }] }, style, halfEm);
const band = bandFor([layout.ink], video);

const still = (l: CueLayout = layout): CaptionFrame => ({ words: l.words.map(() => plainLook(style)), boxes: [] });
const state = (frame: CaptionFrame, l: CueLayout = layout): CaptionState => ({ layout: l, frame });

/** An area of `inBand` in frame pixels. */
const inFrameOf = (inBand: Band, area: PixelArea) => ({
  left: inBand.x + area.x,
  right: inBand.x + area.x + area.width,
  top: inBand.y + area.y,
  bottom: inBand.y + area.y + area.height,
});
const inFrame = (area: PixelArea) => inFrameOf(band, area);

test("nothing shown before or after: nothing to paint", () => {
  assert.equal(repaintArea(null, null, band, style, geometry), null);
});

test("a cue appearing, leaving or giving way to another: everything either shows, not the whole band", () => {
  const short = layoutCue({ start: 3, end: 4, lines: [{ words: [{ text: "hi", start: 3, end: 4 }] }] }, style, halfEm);
  const wideBand = bandFor([layout.ink, short.ink], video);
  const shortOnly = repaintArea(null, state(still(short), short), wideBand, style, geometry);
  assert.ok(shortOnly !== null && shortOnly.width < wideBand.width / 2, JSON.stringify({ shortOnly, wideBand }));
  const hi = inFrameOf(wideBand, shortOnly);
  assert.ok(hi.left <= short.words[0]!.x && hi.right >= short.words[0]!.x + short.words[0]!.width);
  assert.deepEqual(repaintArea(state(still(short), short), null, wideBand, style, geometry), shortOnly);
  const both = repaintArea(state(still()), state(still(short), short), wideBand, style, geometry);
  assert.ok(both !== null && both.width > shortOnly.width && inFrameOf(wideBand, both).left <= layout.words[0]!.x);
});

test("a cue showing nothing yet: only what the last one showed", () => {
  const hidden: CaptionFrame = { words: layout.words.map(() => ({ ...plainLook(style), visible: false })), boxes: [] };
  assert.equal(repaintArea(null, state(hidden), band, style, geometry), null);
});

test("the same picture: nothing to paint", () => {
  assert.equal(repaintArea(state(still()), state(still()), band, style, geometry), null);
});

test("one word changing colour: its bounds, on even pixels, without the far word", () => {
  const after = still();
  after.words[0] = { ...after.words[0]!, color: "#FF0000" };
  const area = repaintArea(state(still()), state(after), band, style, geometry);
  assert.ok(area !== null);
  assert.deepEqual([area.x % 2, area.y % 2, area.width % 2, area.height % 2], [0, 0, 0, 0]);
  const painted = inFrame(area);
  const first = wordBounds(layout, layout.words[0]!, after.words[0]!, geometry);
  assert.ok(painted.left <= Math.max(band.x, first.left) && painted.right >= first.right, JSON.stringify({ painted, first }));
  assert.ok(painted.top <= Math.max(band.y, first.top) && painted.bottom >= Math.min(band.y + band.height, first.bottom));
  assert.ok(painted.right < layout.words[2]!.x, "the last word is not painted again");
});

test("a word moving: both where it was and where it is", () => {
  const before = still();
  const after = still();
  after.words[1] = { ...after.words[1]!, dy: -30 };
  const painted = inFrame(repaintArea(state(before), state(after), band, style, geometry)!);
  const was = wordBounds(layout, layout.words[1]!, before.words[1]!, geometry);
  const is = wordBounds(layout, layout.words[1]!, after.words[1]!, geometry);
  assert.ok(painted.top <= Math.max(band.y, is.top) && painted.bottom >= Math.min(band.y + band.height, was.bottom));
});

test("hidden words changing their looks: nothing to paint", () => {
  const before = still();
  const after = still();
  before.words[2] = { ...before.words[2]!, visible: false };
  after.words[2] = { ...after.words[2]!, visible: false, scale: 0.5 };
  assert.equal(repaintArea(state(before), state(after), band, style, geometry), null);
  after.words[2] = { ...after.words[2]!, visible: true };
  assert.notEqual(repaintArea(state(before), state(after), band, style, geometry), null);
});

test("a box moving: where it was and where it is", () => {
  const box = (x: number) => ({ rect: { x, y: layout.block.y, width: 100, height: 50 }, color: "#7C3AED", radius: 8 });
  const painted = inFrame(repaintArea(state({ ...still(), boxes: [box(300)] }), state({ ...still(), boxes: [box(500)] }), band, style, geometry)!);
  assert.ok(painted.left <= 299 && painted.right >= 601, JSON.stringify(painted));
});

test("a line background sliding: the line's background where it was and where it is, not the other line's", () => {
  const boxed = resolveStyle({ preset: "paper-ink", style: { position: "bottom" }, video });
  const boxedGeometry = captionGeometry(boxed);
  const two = layoutCue({ start: 0, end: 3, lines: [{ words: words.slice(0, 2) }, { words: words.slice(2) }] }, boxed, halfEm);
  const twoBand = bandFor([two.ink], video);
  const frame = (dy: number): CaptionFrame => ({ ...still(two), lines: [{ visible: true, opacity: 1, dy: 0 }, { visible: true, opacity: 0.5, dy }] });
  const area = repaintArea(state(frame(20), two), state(frame(10), two), twoBand, boxed, boxedGeometry);
  assert.ok(area !== null);
  const painted = { top: twoBand.y + area.y, bottom: twoBand.y + area.y + area.height };
  const secondTop = two.lines[1]!.top;
  assert.ok(painted.top > two.lines[0]!.top + two.lineHeight / 2, "the first line is not painted again");
  assert.ok(
    painted.top <= secondTop + 10 - boxedGeometry.background!.padY && painted.bottom >= Math.min(twoBand.y + twoBand.height, secondTop + 20 + two.lineHeight),
  );
});
