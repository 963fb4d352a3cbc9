import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { REFERENCE_LINE_WIDTH } from "@caption/shared/presets/font-size";
import { shadowOffset } from "@caption/shared/style/geometry";
import { applyTextCase } from "@caption/shared/style/text-case";
import type { FontMeasure } from "./font-measure.ts";

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

/** The display text of a word for measuring and drawing. */
export function displayText(text: string, style: ResolvedStyle): string {
  return applyTextCase(text, style.text_case);
}

/** Where a line of `lineWidth` starts in a block of `blockWidth`, by the style's text alignment. */
export function alignOffset(alignment: ResolvedStyle["text_alignment"], blockWidth: number, lineWidth: number): number {
  switch (alignment) {
    case "left":
      return 0;
    case "center":
      return (blockWidth - lineWidth) / 2;
    case "right":
      return blockWidth - lineWidth;
  }
}

/** The width wrapping measures a line against, and the measurement to use, for the cue builder. */
export function lineMeasure(style: ResolvedStyle, measure: FontMeasure): { maxLineWidth: number; measure: (text: string) => number } {
  const geometry = captionGeometry(style);
  return {
    maxLineWidth: geometry.maxTextWidth,
    measure: (text) => measure.width(displayText(text, style), geometry.fontPx),
  };
}
