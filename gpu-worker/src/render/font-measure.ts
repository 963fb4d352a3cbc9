import { createCanvas } from "@napi-rs/canvas";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { fontStack, registerBundledFonts } from "./fonts.ts";

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

const MIN_LINE_EM = 1.15;

/**
 * Text measurement with the face the painter draws (Skia). Where a family lacks the bold or italic face,
 * Skia synthesizes it (emboldened outlines, sheared glyphs) with the regular face's advances.
 */
export function skiaFontMeasure(style: ResolvedStyle): FontMeasure {
  registerBundledFonts();
  const ctx = createCanvas(1, 1).getContext("2d");
  let currentPx = Number.NaN;
  const setPx = (px: number) => {
    if (px === currentPx) return;
    ctx.font = fontStack(style.font_family, style.font_weight, style.font_style, px);
    currentPx = px;
  };
  const referencePx = 100;
  setPx(referencePx);
  // Some fonts declare odd line metrics (Coiny: a negative descent); the ink of tall and descending letters
  // is a floor, and lines get at least MIN_LINE_EM so outlines of neighbouring lines do not run together.
  const declared = ctx.measureText("Hg");
  const ink = ctx.measureText("Hbdfghjklpqy");
  let ascent = Math.max(declared.fontBoundingBoxAscent, ink.actualBoundingBoxAscent) / referencePx;
  let descent = Math.max(declared.fontBoundingBoxDescent, ink.actualBoundingBoxDescent) / referencePx;
  const shortfall = MIN_LINE_EM - (ascent + descent);
  if (shortfall > 0) {
    ascent += shortfall / 2;
    descent += shortfall / 2;
  }
  return {
    width(text, px) {
      setPx(px);
      return ctx.measureText(text).width;
    },
    inkBox(text, px) {
      setPx(px);
      const metrics = ctx.measureText(text);
      return {
        left: metrics.actualBoundingBoxLeft,
        right: metrics.actualBoundingBoxRight,
        ascent: metrics.actualBoundingBoxAscent,
        descent: metrics.actualBoundingBoxDescent,
      };
    },
    ascent,
    descent,
  };
}
