import type { SKRSContext2D } from "@napi-rs/canvas";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import type { CaptionFrame, WordLook } from "./animations/caption-animation.ts";
import type { CaptionGeometry } from "./caption-geometry.ts";
import type { CueLayout } from "./caption-layout.ts";
import { WordPictures, type WordPicture } from "./word-pictures.ts";

/**
 * Parts of a frame laid down from pictures of its words (WordPictures) instead of drawn again, where that gives
 * the pixels drawing would (for animations that move, scale and fade whole words):
 *
 * - Shadows, the costliest part of a word to draw (a blur of it), while no word in the repainted part is
 *   scaled: a blur does not scale with what casts it.
 * - Words rising, falling or fading, unscaled: Skia draws text on whole rows (it rounds the top of the line),
 *   so the word drawn lower is its picture copied that many rows lower; a fading word is that copy at its
 *   opacity, where text needs a layer of its own (so that its outline does not show through its fill).
 *
 * Everything else is drawn as text, at rest (Skia keeps the glyphs of every size it has drawn, so that is
 * cheap) or moving in ways a picture cannot follow exactly: sideways by a fraction of a pixel (Skia places
 * each glyph at a quarter pixel), or scaled (Skia hints the glyphs and snaps them to whole rows at each scale:
 * a picture scaled down from the pop's peak differs from that by more than the golden images' tolerance,
 * measured on smash's pop, best aligned: 160 to 900 pixels of a third-size frame off by 23 to 84 counts).
 */
export class ComposedWords {
  readonly #pictures: WordPictures;

  constructor(style: ResolvedStyle, geometry: CaptionGeometry) {
    this.#pictures = new WordPictures(style, geometry);
  }

  /** Keeps pictures of `layout` only (null: none): called with whatever the painter shows. */
  showing(layout: CueLayout | null): void {
    this.#pictures.showing(layout);
  }

  /** Whether drawShadows can cast the shadow of the words at `indices`: none of them scaled. */
  castsShadows(frame: CaptionFrame, indices: readonly number[]): boolean {
    return indices.every((i) => frame.words[i]?.scale === 1);
  }

  /**
   * The shadow of the words at `indices`, on transparent pixels: their shadow pictures added up ("lighter"),
   * each at its word's opacity. A blur is a sum, so the sum of the words' shadows is the shadow of all of them
   * (where their letters do not overlap, which laid-out words do not). A word shifted by a fraction of a pixel
   * has its shadow added at the whole pixels around, weighted by nearness: the same as resampling it
   * (bilinear), as copies, which cost Skia a fraction of a resample.
   */
  drawShadows(ctx: SKRSContext2D, layout: CueLayout, frame: CaptionFrame, indices: readonly number[]): void {
    ctx.save();
    ctx.globalCompositeOperation = "lighter";
    for (const i of indices) {
      const look = frame.words[i]!;
      const picture = this.#pictures.shadow(layout, i, look);
      for (const x of wholePixelsAround(look.dx)) {
        for (const y of wholePixelsAround(look.dy)) {
          ctx.globalAlpha = look.opacity * x.weight * y.weight;
          layDown(ctx, picture, x.at, y.at);
        }
      }
    }
    ctx.restore();
  }

  /**
   * Whether a word showing with `look` is laid down from its picture (drawWords) rather than drawn as text: an
   * unscaled word rising, falling or fading, not shifted sideways by a fraction of a pixel (Skia places glyphs
   * at quarter pixels across, and on whole rows down).
   */
  pictured(look: WordLook): boolean {
    return look.scale === 1 && Number.isInteger(look.dx) && (look.opacity < 1 || look.dy !== 0);
  }

  /** The words at `indices`, each `pictured`, at their opacities, on `ctx` (frame coordinates). */
  drawWords(ctx: SKRSContext2D, layout: CueLayout, frame: CaptionFrame, indices: readonly number[]): void {
    ctx.save();
    for (const i of indices) {
      const look = frame.words[i]!;
      if (!this.pictured(look)) throw new Error(`word ${i} is not laid down from its picture`);
      const picture = this.#pictures.text(layout, i, look);
      ctx.globalAlpha = look.opacity;
      // On the rows Skia would draw the shifted word's glyphs on: a copy of them.
      layDown(ctx, picture, look.dx, Math.round(picture.textTop + look.dy) - Math.round(picture.textTop));
    }
    ctx.restore();
  }

  /** Pictures the current cue holds (for memory checks). */
  get held(): { pictures: number; pixels: number } {
    return this.#pictures.held;
  }
}

// A weight this small adds nothing an 8-bit picture can show.
const NO_WEIGHT = 1 / 512;

/** The whole pixels either side of `v`, each weighted by how near `v` is to it (one when `v` is whole). */
function wholePixelsAround(v: number): { at: number; weight: number }[] {
  const below = Math.floor(v);
  const fraction = v - below;
  return [
    { at: below, weight: 1 - fraction },
    { at: below + 1, weight: fraction },
  ].filter((pixel) => pixel.weight >= NO_WEIGHT);
}

/** Copies `picture` onto the frame shifted by whole pixels `dx`, `dy` from where its word shows still. */
function layDown(ctx: SKRSContext2D, picture: WordPicture, dx: number, dy: number): void {
  ctx.drawImage(picture.canvas, picture.x + dx, picture.y + dy);
}
