import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import type { CaptionFrame, WordLook } from "./animations/caption-animation.ts";
import { backgroundShapes } from "./background-shapes.ts";
import type { Band, PixelArea } from "./band-layout.ts";
import { EDGE_SPILL, type CaptionGeometry, type Edges, type Rect } from "./caption-geometry.ts";
import type { CueLayout, PlacedWord } from "./caption-layout.ts";
import { outlineWidth, wordCentre } from "./word-text.ts";

/** A cue's caption as it looks at one instant. */
export interface CaptionState {
  layout: CueLayout;
  frame: CaptionFrame;
}

// Room around a word's ink for what measuring it does not see (synthesized bold, hinting), in em; without a
// measure, around its advance and line box for glyphs reaching past them (italics, swashes, accents).
const MEASURED_ROOM_EM = 0.1;
const UNMEASURED_ROOM_EM = 0.25;
// A word drawn in a weight other than the one measured may grow by up to this fraction of its width.
const REWEIGHT_GROWTH = 0.15;
// How far a shadow's blur spreads, in multiples of shadowBlur (three standard deviations of half of it).
const SHADOW_REACH_BLURS = 1.5;

/** How far a shadow reaches past what casts it, in frame pixels. */
export function shadowReach(geometry: CaptionGeometry): { x: number; y: number } {
  const shadow = geometry.shadow;
  if (shadow === null) return { x: 0, y: 0 };
  return { x: SHADOW_REACH_BLURS * shadow.blur + Math.abs(shadow.dx), y: SHADOW_REACH_BLURS * shadow.blur + Math.abs(shadow.dy) };
}

/**
 * Frame pixels a word's glyphs and outline may cover drawn still (unscaled, unshifted) with `look`'s outline
 * and weight: its ink with room for what measuring does not see.
 */
export function stillWordInk(layout: CueLayout, word: PlacedWord, look: WordLook, geometry: CaptionGeometry): Edges {
  const lineTop = layout.lines[word.line]?.top ?? 0;
  const ink = word.ink ?? { left: word.x, right: word.x + word.width, top: lineTop, bottom: lineTop + layout.lineHeight };
  const outline = outlineWidth(geometry, layout) * Math.max(1, look.outlineScale);
  const room = (word.ink === null ? UNMEASURED_ROOM_EM : MEASURED_ROOM_EM) * layout.fontPx + outline;
  // Ink was measured in the style's weight: another one draws the glyphs wider or narrower.
  const reweighted = look.weight === null ? 0 : REWEIGHT_GROWTH * word.width;
  return { left: ink.left - room - reweighted, right: ink.right + room + reweighted, top: ink.top - room, bottom: ink.bottom + room };
}

/** Frame pixels a word may paint with `look`: glyphs, outline and shadow. */
export function wordBounds(layout: CueLayout, word: PlacedWord, look: WordLook, geometry: CaptionGeometry): Edges {
  const still = stillWordInk(layout, word, look, geometry);
  // The painter scales a word about this centre, then shifts it.
  const { x: centreX, y: centreY } = wordCentre(layout, word);
  const shadow = shadowReach(geometry);
  const x = (v: number) => centreX + look.dx + (v - centreX) * look.scale;
  const y = (v: number) => centreY + look.dy + (v - centreY) * look.scale;
  return {
    left: x(still.left) - shadow.x - EDGE_SPILL,
    right: x(still.right) + shadow.x + EDGE_SPILL,
    top: y(still.top) - shadow.y - EDGE_SPILL,
    bottom: y(still.bottom) + shadow.y + EDGE_SPILL,
  };
}

/** Whether two bounds share any area. */
export function overlaps(a: Edges, b: Edges): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/**
 * The part of the band to paint again to go from `before` to `after` (null: nothing shown), in band pixels:
 * what changed (words whose look changed, background shapes and boxes that moved or faded), where it was and
 * where it is, on even rows and columns for 4:2:0 chroma; everything either shows when the cue changes; null
 * when the picture is the same.
 */
export function repaintArea(
  before: CaptionState | null,
  after: CaptionState | null,
  band: Band,
  style: ResolvedStyle,
  geometry: CaptionGeometry,
): PixelArea | null {
  const changed: Edges = { left: Infinity, right: -Infinity, top: Infinity, bottom: -Infinity };
  const include = (bounds: Edges) => {
    changed.left = Math.min(changed.left, bounds.left);
    changed.right = Math.max(changed.right, bounds.right);
    changed.top = Math.min(changed.top, bounds.top);
    changed.bottom = Math.max(changed.bottom, bounds.bottom);
  };
  const paint = { style, geometry, include };
  if (before === null || after === null || before.layout !== after.layout) {
    // Outside what either shows, both are transparent.
    if (before !== null) includeAll(before, paint);
    if (after !== null) includeAll(after, paint);
  } else {
    includeChanges(before, after, paint);
  }
  const x0 = Math.max(0, Math.floor((changed.left - band.x) / 2) * 2);
  const x1 = Math.min(band.width, Math.ceil((changed.right - band.x) / 2) * 2);
  const y0 = Math.max(0, Math.floor((changed.top - band.y) / 2) * 2);
  const y1 = Math.min(band.height, Math.ceil((changed.bottom - band.y) / 2) * 2);
  if (!(x1 > x0 && y1 > y0)) return null;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

interface Painting {
  style: ResolvedStyle;
  geometry: CaptionGeometry;
  include: (bounds: Edges) => void;
}

/** Everything a caption draws: its words, background and boxes. */
function includeAll(caption: CaptionState, { style, geometry, include }: Painting): void {
  const { layout, frame } = caption;
  layout.words.forEach((word, i) => {
    const look = frame.words[i];
    if (look !== undefined && drawn(look)) include(wordBounds(layout, word, look, geometry));
  });
  for (const shape of backgroundShapes(layout, frame.lines, style.background.type, geometry)) include(rectBounds(shape.rect));
  for (const box of frame.boxes) include(rectBounds(box.rect));
}

/** What differs between two looks of one cue, where it was and where it is. */
function includeChanges(before: CaptionState, after: CaptionState, { style, geometry, include }: Painting): void {
  const { layout } = after;
  layout.words.forEach((word, i) => {
    const was = before.frame.words[i];
    const is = after.frame.words[i];
    if (was === undefined || is === undefined || sameLook(was, is)) return;
    if (drawn(was)) include(wordBounds(layout, word, was, geometry));
    if (drawn(is)) include(wordBounds(layout, word, is, geometry));
  });
  if (JSON.stringify(before.frame.lines ?? null) !== JSON.stringify(after.frame.lines ?? null)) {
    const was = backgroundShapes(layout, before.frame.lines, style.background.type, geometry);
    const is = backgroundShapes(layout, after.frame.lines, style.background.type, geometry);
    for (const shape of changedItems(was, is)) include(rectBounds(shape.rect));
  }
  for (const box of changedItems(before.frame.boxes, after.frame.boxes)) include(rectBounds(box.rect));
}

function rectBounds(rect: Rect): Edges {
  return { left: rect.x - EDGE_SPILL, right: rect.x + rect.width + EDGE_SPILL, top: rect.y - EDGE_SPILL, bottom: rect.y + rect.height + EDGE_SPILL };
}

/** Whether the painter draws a word with this look. */
export function drawn(look: WordLook): boolean {
  return look.visible && look.opacity > 0;
}

function sameLook(a: WordLook, b: WordLook): boolean {
  if (!drawn(a) || !drawn(b)) return drawn(a) === drawn(b);
  return (
    a.opacity === b.opacity &&
    a.scale === b.scale &&
    a.dx === b.dx &&
    a.dy === b.dy &&
    a.color === b.color &&
    a.outlineColor === b.outlineColor &&
    a.outlineScale === b.outlineScale &&
    a.weight === b.weight &&
    a.fill?.color === b.fill?.color &&
    (a.fill?.fraction ?? 0) === (b.fill?.fraction ?? 0)
  );
}

/** The items of either list that the other does not have, compared by value. */
function changedItems<T>(a: readonly T[], b: readonly T[]): T[] {
  const keysA = a.map((item) => JSON.stringify(item));
  const keysB = b.map((item) => JSON.stringify(item));
  const inA = new Set(keysA);
  const inB = new Set(keysB);
  return [...a.filter((_, i) => !inB.has(keysA[i]!)), ...b.filter((_, i) => !inA.has(keysB[i]!))];
}
