import { createCanvas, type Canvas, type SKRSContext2D } from "@napi-rs/canvas";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import type { WordLook } from "./animations/caption-animation.ts";
import { EDGE_SPILL, type CaptionGeometry } from "./caption-geometry.ts";
import type { CueLayout } from "./caption-layout.ts";
import { shadowReach, stillWordInk } from "./repaint-area.ts";
import { fontStack } from "./fonts.ts";
import { drawWordsText, outlineWidth } from "./word-text.ts";

/** A word (or its shadow) drawn once, unscaled, at full quality, to be laid down again shifted and faded. */
export interface WordPicture {
  readonly canvas: Canvas;
  /** Frame pixel where the canvas's top left lands when the word shows unshifted: whole numbers. */
  readonly x: number;
  readonly y: number;
}

/** A word's fill and outline, and where Skia puts its glyphs. */
export interface TextPicture extends WordPicture {
  /**
   * The top of the word's line of text as drawn (its baseline less its font's ascent), in frame pixels. Skia
   * rounds it to a whole row: text drawn `dy` lower lands on round(textTop + dy) − round(textTop) rows lower.
   */
  readonly textTop: number;
}

// Blank pixels kept around what a picture holds, for anti-aliasing.
const PICTURE_MARGIN = 2;
// Canvases of a finished cue kept to draw the next cue's pictures on, up to this many pixels (4 bytes each).
const POOL_PIXELS = 1 << 20;
// A kept canvas serves a smaller picture while it has at most this many times the pixels needed.
const POOL_SLACK = 2;
const POOL_STEP = 16;

/**
 * Pictures of one cue's words, each drawn the first time a frame needs it: the word's fill and outline in a
 * look's colours, and the shadow it casts, alone. The word lies on the same sub-pixel position in its picture
 * as on the frame, so a picture laid down shifted by whole pixels holds the pixels the painter would draw.
 * Valid while that cue shows: showing another (or none) drops them all, their canvases kept for the next
 * cue's pictures.
 */
export class WordPictures {
  readonly #style: ResolvedStyle;
  readonly #geometry: CaptionGeometry;
  readonly #pictures = new Map<string, WordPicture | TextPicture>();
  readonly #free: Canvas[] = [];
  #layout: CueLayout | null = null;

  constructor(style: ResolvedStyle, geometry: CaptionGeometry) {
    this.#style = style;
    this.#geometry = geometry;
  }

  /** Keeps pictures for `layout` only (null: none); called with whatever the painter shows. */
  showing(layout: CueLayout | null): void {
    if (layout === this.#layout) return;
    for (const { canvas } of this.#pictures.values()) this.#free.push(canvas);
    this.#pictures.clear();
    this.#layout = layout;
    this.#trimPool();
  }

  /** Word `index`'s fill and outline with `look`'s colours (its scale, shift and opacity do not apply). */
  text(layout: CueLayout, index: number, look: WordLook): TextPicture {
    return this.#cached(layout, `text ${index} ${lookKey(look)}`, () => this.#drawText(layout, index, look)) as TextPicture;
  }

  /** The style's shadow of word `index` drawn with `look`'s colours, without the word. */
  shadow(layout: CueLayout, index: number, look: WordLook): WordPicture {
    return this.#cached(layout, `shadow ${index} ${lookKey(look)}`, () => this.#drawShadow(this.text(layout, index, look)));
  }

  /** How many pictures the current cue holds, and their canvases' pixels. */
  get held(): { pictures: number; pixels: number } {
    let pixels = 0;
    for (const { canvas } of this.#pictures.values()) pixels += canvas.width * canvas.height;
    return { pictures: this.#pictures.size, pixels };
  }

  #cached(layout: CueLayout, key: string, draw: () => WordPicture): WordPicture {
    this.showing(layout);
    let picture = this.#pictures.get(key);
    if (picture === undefined) {
      picture = draw();
      this.#pictures.set(key, picture);
    }
    return picture;
  }

  /** Drops the longest-kept canvases beyond the pool's size. */
  #trimPool(): void {
    let pixels = this.#free.reduce((sum, c) => sum + c.width * c.height, 0);
    while (pixels > POOL_PIXELS) {
      const dropped = this.#free.shift()!;
      pixels -= dropped.width * dropped.height;
    }
  }

  #drawText(layout: CueLayout, index: number, look: WordLook): TextPicture {
    const word = layout.words[index];
    if (word === undefined) throw new RangeError(`cue has no word ${index}`);
    const ink = stillWordInk(layout, word, look, this.#geometry);
    const reach = EDGE_SPILL + PICTURE_MARGIN;
    const x = Math.floor(ink.left) - reach;
    const y = Math.floor(ink.top) - reach;
    const { canvas, ctx } = this.#blank(Math.ceil(ink.right) + reach - x, Math.ceil(ink.bottom) + reach - y);
    // A whole-pixel shift: the glyphs fall on the same sub-pixel positions as on the frame.
    ctx.translate(-x, -y);
    const still: WordLook = { ...look, visible: true, opacity: 1, scale: 1, dx: 0, dy: 0 };
    drawWordsText(ctx, this.#style, layout, [[word, still]], outlineWidth(this.#geometry, layout));
    // The ascent Skia lays the word out with: that of the font its first letters are drawn in.
    ctx.font = fontStack(this.#style.font_family, this.#style.font_weight, this.#style.font_style, layout.fontPx);
    const ascent = ctx.measureText(word.display).alphabeticBaseline;
    return { canvas, x, y, textTop: (layout.lines[word.line]?.baseline ?? 0) - ascent };
  }

  #drawShadow(text: WordPicture): WordPicture {
    const shadow = this.#geometry.shadow;
    if (shadow === null) throw new Error("the style casts no shadow");
    const reach = shadowReach(this.#geometry);
    const padX = Math.ceil(reach.x) + PICTURE_MARGIN;
    const padY = Math.ceil(reach.y) + PICTURE_MARGIN;
    const width = text.canvas.width + 2 * padX;
    const height = text.canvas.height + 2 * padY;
    // Canvas draws a shadow only with what casts it, and Skia only within the bounds of the image casting it:
    // the word goes on the left of a wider picture, room for its shadow on the right, and that picture is drawn
    // off this canvas to the left with its shadow offset back onto it, as the painter would cast it.
    const away = padX + text.canvas.width;
    const source = this.#blank(away + width, height);
    source.ctx.drawImage(text.canvas, padX, padY);
    const { canvas, ctx } = this.#blank(width, height);
    ctx.shadowColor = this.#style.shadow.color;
    ctx.shadowBlur = shadow.blur;
    ctx.shadowOffsetX = shadow.dx + away;
    ctx.shadowOffsetY = shadow.dy;
    ctx.drawImage(source.canvas, -away, 0);
    // Drawing a canvas takes a copy of its pixels: the source may serve the next picture.
    this.#free.push(source.canvas);
    this.#trimPool();
    return { canvas, x: text.x - padX, y: text.y - padY };
  }

  /** A transparent canvas of at least `width` x `height` with a fresh context state. */
  #blank(width: number, height: number): { canvas: Canvas; ctx: SKRSContext2D } {
    const fits = (c: Canvas) => c.width >= width && c.height >= height && c.width * c.height <= POOL_SLACK * width * height;
    const kept = this.#free.findIndex(fits);
    const canvas =
      kept >= 0 ? this.#free.splice(kept, 1)[0]! : createCanvas(Math.ceil(width / POOL_STEP) * POOL_STEP, Math.ceil(height / POOL_STEP) * POOL_STEP);
    const ctx = canvas.getContext("2d");
    ctx.reset();
    // @napi-rs/canvas 0.1.100 keeps the transform a canvas had before reset() for the first thing drawn after
    // it (a reused picture canvas drawn the next picture off its edge); setting it again takes.
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    return { canvas, ctx };
  }
}

/** What of a look shapes a word's picture (shift, scale and opacity apply when it is laid down). */
function lookKey(look: WordLook): string {
  if (look.weight !== null || look.fill !== null) throw new Error("word pictures hold words in the style's weight, without a fill");
  return `${look.color} ${look.outlineColor} ${look.outlineScale}`;
}
