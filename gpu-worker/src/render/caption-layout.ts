import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { blockShift } from "@caption/shared/style/geometry";
import { blockReach, fitFontPx } from "./caption-fitting.ts";
import { alignOffset, captionGeometry, displayText, type CaptionGeometry, type Edges, type Rect } from "./caption-geometry.ts";
import type { Cue, CueWord } from "./cue-builder.ts";
import type { FontMeasure } from "./font-measure.ts";

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
  const lineDisplays = cue.lines.map((line) => line.words.map((w) => displayText(w.text, style)));
  const fontPx = fitFontPx(lineDisplays, geometry, measure, overshootEm, blockScale);

  const ascent = measure.ascent * fontPx;
  const descent = measure.descent * fontPx;
  const lineHeight = ascent + descent;
  const lineWidths = lineDisplays.map((d) => measure.width(d.join(" "), fontPx));
  const block = { width: Math.max(0, ...lineWidths), height: cue.lines.length * lineHeight };
  const sideOvershootPx = (room.sideOvershootEm ?? 0) * fontPx + (room.sideGrowth ?? 0) * block.width;
  const reach = blockReach({ style, geometry, measure, fontPx, lines: lineDisplays, lineWidths, block, overshootEm, sideOvershootPx, blockScale });
  const { x, y } = blockOrigin(style, geometry, block, reach);

  const words: PlacedWord[] = [];
  const lines = cue.lines.map((line, index): PlacedLine => {
    const width = lineWidths[index]!;
    const lineX = x + alignOffset(style.text_alignment, block.width, width);
    const top = y + index * lineHeight;
    const placed = placeWords(line.words, lineDisplays[index]!, { x: lineX, baseline: top + ascent, index }, fontPx, measure);
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
    block: { x, y, width: block.width, height: block.height },
    ink: { top: y - reach.top, bottom: y + block.height + reach.bottom, left: x - reach.left, right: x + block.width + reach.right },
  };
}

/** The block's top left: anchored by the style's positions and offsets, then kept inside the frame with its painting room. */
function blockOrigin(style: ResolvedStyle, geometry: CaptionGeometry, block: { width: number; height: number }, reach: Edges): { x: number; y: number } {
  const { width: frameWidth, height: frameHeight } = style.video;
  const shift = blockShift(style);
  let x: number;
  switch (style.horizontal_position) {
    case "left":
      x = geometry.margin + shift.x;
      break;
    case "center":
      x = (frameWidth - block.width) / 2 + shift.x;
      break;
    case "right":
      x = frameWidth - geometry.margin - block.width + shift.x;
      break;
  }
  let y: number;
  switch (style.position) {
    case "top":
      y = shift.y;
      break;
    case "center":
      y = (frameHeight - block.height) / 2 + shift.y;
      break;
    case "bottom":
      y = frameHeight - block.height + shift.y;
      break;
  }
  return { x: clamp(x, reach.left, frameWidth - reach.right - block.width), y: clamp(y, reach.top, frameHeight - reach.bottom - block.height) };
}

/**
 * A line's words, each placed by where it ends in the line, shaped (kerned) as the line is measured: the last
 * word ends exactly at the line's measured width, which the block and its frame clamp rely on.
 */
function placeWords(
  words: readonly CueWord[],
  displays: readonly string[],
  line: { x: number; baseline: number; index: number },
  fontPx: number,
  measure: FontMeasure,
): PlacedWord[] {
  return words.map((word, w): PlacedWord => {
    const display = displays[w]!;
    const wordWidth = measure.width(display, fontPx);
    const end = measure.width(displays.slice(0, w + 1).join(" "), fontPx);
    const x = line.x + end - wordWidth;
    const box = measure.inkBox?.(display, fontPx);
    const ink = box === undefined ? null : { left: x - box.left, right: x + box.right, top: line.baseline - box.ascent, bottom: line.baseline + box.descent };
    return { ...word, display, x, width: wordWidth, line: line.index, ink };
  });
}

/** Keeps `value` in [min, max]; when the range is empty (content larger than the frame) centres it. */
function clamp(value: number, min: number, max: number): number {
  if (max < min) return (min + max) / 2;
  return Math.min(Math.max(value, min), max);
}
