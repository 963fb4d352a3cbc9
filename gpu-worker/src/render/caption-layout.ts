import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { REFERENCE_LINE_WIDTH } from "@caption/shared/style/font-size";
import { blockShift, shadowOffset } from "@caption/shared/style/geometry";
import { applyTextCase } from "@caption/shared/style/text-case";
import type { Cue, CueWord } from "./cue-builder.ts";

/** Text measurement in the resolved font; the painter backs it with Skia, tests with arithmetic. */
export interface FontMeasure {
  /** Advance width in pixels of `text` at `fontPx`. */
  width(text: string, fontPx: number): number;
  /** Font ascent and descent per pixel of font size (line box above and below the baseline). */
  ascent: number;
  descent: number;
  /**
   * How far the ink of `text` at `fontPx` reaches from its origin (the start of its advance, on the baseline):
   * left and right of it, above and below it; absent: within the advance and the line box.
   */
  inkBox?(text: string, fontPx: number): InkBox;
}

export interface InkBox {
  left: number;
  right: number;
  ascent: number;
  descent: number;
}

/** Edges of a region of the frame, in frame pixels. */
export interface Edges {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedWord extends CueWord {
  /** The text as drawn (text case applied). */
  display: string;
  x: number;
  width: number;
  line: number;
  /** Where its glyphs' ink lies on the frame, drawn still; null when the measure does not tell. */
  ink: Edges | null;
}

export interface PlacedLine {
  x: number;
  width: number;
  /** Top of the line box; the baseline is `top + ascent`. */
  top: number;
  baseline: number;
  words: PlacedWord[];
}

/** A cue placed on the frame (output-video pixels). */
export interface CueLayout {
  cue: Cue;
  fontPx: number;
  ascent: number;
  descent: number;
  lineHeight: number;
  lines: PlacedLine[];
  words: PlacedWord[];
  /** Union of the line boxes. */
  block: Rect;
  /** Where the caption may paint, with outline, shadow, background and animation room. */
  ink: Edges;
}

/** Caption-canvas (1080 px wide) sizes, multiplied by the style's final scale. */
const CAPTION_CANVAS_WIDTH = 1080;
const SIDE_MARGIN = (CAPTION_CANVAS_WIDTH - REFERENCE_LINE_WIDTH) / 2;
const BACKGROUND_PAD_X_EM = 0.3;
const BACKGROUND_PAD_Y_EM = 0.08;
const BACKGROUND_RADIUS_EM = 0.3;
// Anti-aliasing spills a pixel past computed edges.
export const EDGE_SPILL = 1;
// Italic glyphs (real or sheared by Skia) lean past their advance by up to this fraction of the font size.
const ITALIC_OVERHANG_EM = 0.2;

/** Everything about the style's geometry that does not depend on the text. */
export interface CaptionGeometry {
  fontPx: number;
  /** Room a line's text may take. */
  maxTextWidth: number;
  /** Room the block may take vertically. */
  maxBlockHeight: number;
  margin: number;
  outlineWidth: number;
  background: { padX: number; padY: number; radius: number } | null;
  shadow: { dx: number; dy: number; blur: number } | null;
}

export function captionGeometry(style: ResolvedStyle): CaptionGeometry {
  const s = style.final_scale;
  const fontPx = style.font_size * s;
  const margin = Math.min(SIDE_MARGIN * s, style.video.width * 0.1);
  const outlineWidth = style.outline.thickness * s;
  const background =
    style.background.type === "none"
      ? null
      : { padX: BACKGROUND_PAD_X_EM * fontPx, padY: BACKGROUND_PAD_Y_EM * fontPx, radius: BACKGROUND_RADIUS_EM * fontPx };
  const offset = shadowOffset(style.shadow);
  const shadow = style.shadow.enabled ? { dx: offset.x * s, dy: offset.y * s, blur: style.shadow.blur * s } : null;
  const sideRoom = Math.max(outlineWidth, background?.padX ?? 0) + (style.font_style === "italic" ? ITALIC_OVERHANG_EM * fontPx : 0);
  // Font sizes are derived for a reference line; outline and background spill into the side margins.
  const maxTextWidth = Math.min(REFERENCE_LINE_WIDTH * s, style.video.width - 2 * (margin + sideRoom));
  return {
    fontPx,
    maxTextWidth: Math.max(1, maxTextWidth),
    maxBlockHeight: style.video.height - 2 * margin,
    margin,
    outlineWidth,
    background,
    shadow,
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

/** The display text of a word for measuring and drawing. */
export function displayText(text: string, style: ResolvedStyle): string {
  return applyTextCase(text, style.text_case);
}

/** Room an animation needs beyond the laid-out text (a CaptionAnimation is one). */
export interface LayoutRoom {
  /** Extra room above and below the block, in em of the font size. */
  overshootEm?: number;
  /** Largest scale the whole block takes about its centre. */
  peakBlockScale?: number;
  /** Extra room left and right of the lines, in em. */
  sideOvershootEm?: number;
  /** Extra room left and right, as a fraction of the block's width. */
  sideGrowth?: number;
}

/** Places a cue's lines on the frame: alignment, block position and offsets, shrunk to fit, kept inside the frame. */
export function layoutCue(
  cue: Cue,
  style: ResolvedStyle,
  measure: FontMeasure,
  room: LayoutRoom = {},
): CueLayout {
  const geometry = captionGeometry(style);
  const overshootEm = room.overshootEm ?? 0;
  const blockScale = Math.max(1, room.peakBlockScale ?? 1);
  const { width: frameWidth, height: frameHeight } = style.video;
  const lineDisplays = cue.lines.map((line) => line.words.map((w) => displayText(w.text, style)));

  // Wrapping already happened at the style's size; a single long word or too many lines may still need smaller type.
  let fontPx = geometry.fontPx;
  for (let attempt = 0; attempt < 3; attempt++) {
    const widest = Math.max(0, ...lineDisplays.map((d) => measure.width(d.join(" "), fontPx)));
    const reach = verticalReach(geometry, fontPx, overshootEm);
    const height = cue.lines.length * (measure.ascent + measure.descent) * fontPx + reach.top + reach.bottom;
    const fit = Math.min(1, geometry.maxTextWidth / Math.max(widest * blockScale, 1e-9), geometry.maxBlockHeight / Math.max(height * blockScale, 1e-9));
    if (fit >= 0.999) break;
    fontPx *= fit * 0.995;
  }

  const ascent = measure.ascent * fontPx;
  const descent = measure.descent * fontPx;
  const lineHeight = ascent + descent;
  const lineWidths = lineDisplays.map((d) => measure.width(d.join(" "), fontPx));
  const blockWidth = Math.max(0, ...lineWidths);
  const blockHeight = cue.lines.length * lineHeight;
  // Scaling the block about its centre carries its painted edges outward in proportion to their distance from it.
  const grow = blockScale - 1;
  const textReach = verticalReach(geometry, fontPx, overshootEm);
  const reach = {
    top: textReach.top + grow * (blockHeight / 2 + textReach.top),
    bottom: textReach.bottom + grow * (blockHeight / 2 + textReach.bottom),
  };
  const sideOvershoot = (room.sideOvershootEm ?? 0) * fontPx + (room.sideGrowth ?? 0) * blockWidth;
  const textSideReach = horizontalReach(geometry, fontPx, glyphOverhang(lineDisplays, lineWidths, blockWidth, fontPx, style, measure), sideOvershoot);
  const sideReach = {
    left: textSideReach.left + grow * (blockWidth / 2 + textSideReach.left),
    right: textSideReach.right + grow * (blockWidth / 2 + textSideReach.right),
  };
  const shift = blockShift(style);

  let x: number;
  switch (style.horizontal_position) {
    case "left":
      x = geometry.margin + shift.x;
      break;
    case "center":
      x = (frameWidth - blockWidth) / 2 + shift.x;
      break;
    case "right":
      x = frameWidth - geometry.margin - blockWidth + shift.x;
      break;
  }
  let y: number;
  switch (style.position) {
    case "top":
      y = shift.y;
      break;
    case "center":
      y = (frameHeight - blockHeight) / 2 + shift.y;
      break;
    case "bottom":
      y = frameHeight - blockHeight + shift.y;
      break;
  }
  x = clamp(x, sideReach.left, frameWidth - sideReach.right - blockWidth);
  y = clamp(y, reach.top, frameHeight - reach.bottom - blockHeight);

  const words: PlacedWord[] = [];
  const lines = cue.lines.map((line, index): PlacedLine => {
    const displays = lineDisplays[index]!;
    const width = lineWidths[index]!;
    const lineX = x + alignOffset(style.text_alignment, blockWidth, width);
    const top = y + index * lineHeight;
    const placed = line.words.map((word, w): PlacedWord => {
      // Placed by where the word ends in the line, shaped (kerned) as the line is measured: the last word ends
      // exactly at the line's measured width, which the block and its frame clamp rely on.
      const display = displays[w]!;
      const wordWidth = measure.width(display, fontPx);
      const end = measure.width(displays.slice(0, w + 1).join(" "), fontPx);
      const x = lineX + end - wordWidth;
      const box = measure.inkBox?.(display, fontPx);
      const baseline = top + ascent;
      const ink = box === undefined ? null : { left: x - box.left, right: x + box.right, top: baseline - box.ascent, bottom: baseline + box.descent };
      return { ...word, display, x, width: wordWidth, line: index, ink };
    });
    words.push(...placed);
    return { x: lineX, width, top, baseline: top + ascent, words: placed };
  });

  return {
    cue,
    fontPx,
    ascent,
    descent,
    lineHeight,
    lines,
    words,
    block: { x, y, width: blockWidth, height: blockHeight },
    ink: { top: y - reach.top, bottom: y + blockHeight + reach.bottom, left: x - sideReach.left, right: x + blockWidth + sideReach.right },
  };
}

/** How far glyph ink reaches past the block's left and right edges, over all lines as aligned. */
function glyphOverhang(
  lineDisplays: readonly string[][],
  lineWidths: readonly number[],
  blockWidth: number,
  fontPx: number,
  style: ResolvedStyle,
  measure: FontMeasure,
): { left: number; right: number } {
  let left = 0;
  let right = 0;
  lineDisplays.forEach((displays, i) => {
    const box = measure.inkBox?.(displays.join(" "), fontPx);
    if (box === undefined) return;
    const overhang = { left: Math.max(0, box.left), right: Math.max(0, box.right - lineWidths[i]!) };
    const offset = alignOffset(style.text_alignment, blockWidth, lineWidths[i]!);
    left = Math.max(left, overhang.left - offset);
    right = Math.max(right, offset + lineWidths[i]! + overhang.right - blockWidth);
  });
  return { left, right };
}

function alignOffset(alignment: ResolvedStyle["text_alignment"], blockWidth: number, lineWidth: number): number {
  switch (alignment) {
    case "left":
      return 0;
    case "center":
      return (blockWidth - lineWidth) / 2;
    case "right":
      return blockWidth - lineWidth;
  }
}

/** Keeps `value` in [min, max]; when the range is empty (content larger than the frame) centres it. */
function clamp(value: number, min: number, max: number): number {
  if (max < min) return (min + max) / 2;
  return Math.min(Math.max(value, min), max);
}

/** The width wrapping measures a line against, and the measurement to use, for the cue builder. */
export function lineMeasure(style: ResolvedStyle, measure: FontMeasure): { maxLineWidth: number; measure: (text: string) => number } {
  const geometry = captionGeometry(style);
  return {
    maxLineWidth: geometry.maxTextWidth,
    measure: (text) => measure.width(displayText(text, style), geometry.fontPx),
  };
}
