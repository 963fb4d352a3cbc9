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
 * - Words fading in place: a copy of the picture at the word's opacity, where text needs a layer of its own
 *   (so that its outline does not show through its fill).
 *
 * Everything else is drawn as text. Skia keeps the glyphs of every size it has drawn, so a word at its laid-out
 * size is cheap to draw again, and cheaper than resampling its picture at a fractional shift. A scaled word has
 * its glyphs drawn afresh at every new scale, but Skia also hints them and snaps them to whole pixels at that
 * scale: a scaled picture of the word differs from it by more than the golden images' tolerance (measured on
 * smash's pop, best aligned: 160 to 900 pixels of a third-size frame off by up to 23 to 84 counts).
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

  /** Whether a word showing with `look` is laid down from its picture (drawWords) rather than drawn as text. */
  pictured(look: WordLook): boolean {
    return look.scale === 1 && look.opacity < 1 && Number.isInteger(look.dx) && Number.isInteger(look.dy);
  }

  /** The words at `indices`, each `pictured`, at their opacities, on `ctx` (frame coordinates). */
  drawWords(ctx: SKRSContext2D, layout: CueLayout, frame: CaptionFrame, indices: readonly number[]): void {
    ctx.save();
    for (const i of indices) {
      const look = frame.words[i]!;
      if (!this.pictured(look)) throw new Error(`word ${i} is not laid down from its picture`);
      ctx.globalAlpha = look.opacity;
      layDown(ctx, this.#pictures.text(layout, i, look), look.dx, look.dy);
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
