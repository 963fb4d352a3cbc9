import type { SKRSContext2D } from "@napi-rs/canvas";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import type { WordLook } from "./animations/caption-animation.ts";
import type { CaptionGeometry } from "./caption-geometry.ts";
import type { CueLayout, PlacedWord } from "./caption-layout.ts";
import { fontStack } from "./fonts.ts";

// How words are drawn as text, shared by the painter's direct drawing and the word pictures it composes from,
// so that both put the same glyphs on the same pixels.

/** The visible outline width of `layout`'s words, in frame pixels (the style's, at the cue's font size). */
export function outlineWidth(geometry: CaptionGeometry, layout: CueLayout): number {
  return geometry.outlineWidth * (layout.fontPx / geometry.fontPx);
}

/**
 * Draws words with their looks (frame coordinates): the outlines of all of them under the fills of all of them,
 * so that an outline never covers a neighbour's letters.
 */
export function drawWordsText(
  ctx: SKRSContext2D,
  style: ResolvedStyle,
  layout: CueLayout,
  words: readonly (readonly [PlacedWord, WordLook])[],
  outline: number,
): void {
  ctx.textAlign = "left";
  ctx.textBaseline = "alphabetic";
  ctx.lineJoin = "round";
  ctx.lineCap = "round";
  for (const pass of ["outline", "fill"] as const) {
    if (pass === "outline" && outline <= 0) continue;
    for (const [word, look] of words) drawWord(ctx, style, layout, word, look, pass, outline);
  }
}

function drawWord(
  ctx: SKRSContext2D,
  style: ResolvedStyle,
  layout: CueLayout,
  word: PlacedWord,
  look: WordLook,
  pass: "outline" | "fill",
  outline: number,
): void {
  const line = layout.lines[word.line];
  if (line === undefined) return;
  ctx.save();
  ctx.font = fontStack(style.font_family, look.weight ?? style.font_weight, style.font_style, layout.fontPx);
  if (look.scale !== 1 || look.dx !== 0 || look.dy !== 0) {
    const centre = wordCentre(layout, word);
    ctx.translate(centre.x + look.dx, centre.y + look.dy);
    ctx.scale(look.scale, look.scale);
    ctx.translate(-centre.x, -centre.y);
  }
  if (pass === "outline") {
    if (look.outlineScale > 0) {
      ctx.strokeStyle = look.outlineColor;
      // The fill covers the inner half of the stroke: the visible outline is `outline` wide.
      ctx.lineWidth = 2 * outline * look.outlineScale;
      ctx.strokeText(word.display, word.x, line.baseline);
    }
  } else {
    ctx.fillStyle = look.color;
    ctx.fillText(word.display, word.x, line.baseline);
    if (look.fill && look.fill.fraction > 0) {
      ctx.beginPath();
      ctx.rect(word.x - layout.fontPx, line.top - layout.lineHeight, look.fill.fraction * word.width + layout.fontPx, 3 * layout.lineHeight);
      ctx.clip();
      ctx.fillStyle = look.fill.color;
      ctx.fillText(word.display, word.x, line.baseline);
    }
  }
  ctx.restore();
}

/** The point a word scales about: the centre of its advance and line box (frame pixels). */
export function wordCentre(layout: CueLayout, word: PlacedWord): { x: number; y: number } {
  const top = layout.lines[word.line]?.top ?? 0;
  return { x: word.x + word.width / 2, y: top + layout.lineHeight / 2 };
}
