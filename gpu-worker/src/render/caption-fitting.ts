import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { alignOffset, EDGE_SPILL, type CaptionGeometry, type Edges } from "./caption-geometry.ts";
import type { FontMeasure } from "./font-measure.ts";

// How much room a cue's painting takes: the font size its lines fit at, and how far outline, background,
// shadow, glyph ink and the animation reach past the block of line boxes.

/** A cue's lines as drawn: each line's words, text case applied. */
export type LineDisplays = readonly (readonly string[])[];

/**
 * The font size the lines fit at. Wrapping already happened at the style's size; a single long word or too many
 * lines may still need smaller type, so the size shrinks (at most three times) until the widest line and the
 * block with its painting room, scaled by `blockScale`, fit the geometry's room.
 */
export function fitFontPx(lines: LineDisplays, geometry: CaptionGeometry, measure: FontMeasure, overshootEm: number, blockScale: number): number {
  let fontPx = geometry.fontPx;
  for (let attempt = 0; attempt < 3; attempt++) {
    const widest = Math.max(0, ...lines.map((d) => measure.width(d.join(" "), fontPx)));
    const reach = verticalReach(geometry, fontPx, overshootEm);
    const height = lines.length * (measure.ascent + measure.descent) * fontPx + reach.top + reach.bottom;
    const fit = Math.min(1, geometry.maxTextWidth / Math.max(widest * blockScale, 1e-9), geometry.maxBlockHeight / Math.max(height * blockScale, 1e-9));
    if (fit >= 0.999) break;
    fontPx *= fit * 0.995;
  }
  return fontPx;
}

export interface BlockReachInput {
  style: ResolvedStyle;
  geometry: CaptionGeometry;
  measure: FontMeasure;
  fontPx: number;
  lines: LineDisplays;
  lineWidths: readonly number[];
  block: { width: number; height: number };
  /** Extra room above and below the block, in em. */
  overshootEm: number;
  /** Extra room left and right of the lines, in pixels. */
  sideOvershootPx: number;
  /** Largest scale the whole block takes about its centre. */
  blockScale: number;
}

/** How far (px) painting reaches past each edge of the block, carried outward as the block scales about its centre. */
export function blockReach(input: BlockReachInput): Edges {
  const { geometry, fontPx, block } = input;
  const grow = input.blockScale - 1;
  const textReach = verticalReach(geometry, fontPx, input.overshootEm);
  const sideReach = horizontalReach(geometry, fontPx, glyphOverhang(input), input.sideOvershootPx);
  return {
    top: textReach.top + grow * (block.height / 2 + textReach.top),
    bottom: textReach.bottom + grow * (block.height / 2 + textReach.bottom),
    left: sideReach.left + grow * (block.width / 2 + sideReach.left),
    right: sideReach.right + grow * (block.width / 2 + sideReach.right),
  };
}

/** How far (px) painting may reach beyond the block's top and bottom at this font size. */
function verticalReach(geometry: CaptionGeometry, fontPx: number, overshootEm: number) {
  const scale = fontPx / geometry.fontPx;
  const base = Math.max(geometry.outlineWidth, (geometry.background?.padY ?? 0) * scale) + overshootEm * fontPx + EDGE_SPILL;
  const shadow = geometry.shadow;
  const blur = shadow ? shadow.blur * 1.5 : 0;
  return {
    top: base + (shadow ? Math.max(0, blur - shadow.dy) : 0),
    bottom: base + (shadow ? Math.max(0, blur + shadow.dy) : 0),
  };
}

/** How far (px) painting may reach beyond the block's left and right edges at this font size. */
function horizontalReach(geometry: CaptionGeometry, fontPx: number, glyphs: { left: number; right: number }, overshootPx: number) {
  const scale = fontPx / geometry.fontPx;
  const base = Math.max(geometry.outlineWidth, (geometry.background?.padX ?? 0) * scale) + overshootPx + EDGE_SPILL;
  const shadow = geometry.shadow;
  const blur = shadow ? shadow.blur * 1.5 : 0;
  return {
    left: base + glyphs.left + (shadow ? Math.max(0, blur - shadow.dx) : 0),
    right: base + glyphs.right + (shadow ? Math.max(0, blur + shadow.dx) : 0),
  };
}

/** How far glyph ink reaches past the block's left and right edges, over all lines as aligned. */
function glyphOverhang({ lines, lineWidths, block, fontPx, style, measure }: BlockReachInput): { left: number; right: number } {
  let left = 0;
  let right = 0;
  lines.forEach((displays, i) => {
    const box = measure.inkBox?.(displays.join(" "), fontPx);
    if (box === undefined) return;
    const overhang = { left: Math.max(0, box.left), right: Math.max(0, box.right - lineWidths[i]!) };
    const offset = alignOffset(style.text_alignment, block.width, lineWidths[i]!);
    left = Math.max(left, overhang.left - offset);
    right = Math.max(right, offset + lineWidths[i]! + overhang.right - block.width);
  });
  return { left, right };
}
