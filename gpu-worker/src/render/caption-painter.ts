import { createCanvas, type Canvas, type SKRSContext2D } from "@napi-rs/canvas";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import type { CaptionAnimation, CaptionFrame, LineLook, WordLook } from "./animations/caption-animation.ts";
import type { Band } from "./band-layout.ts";
import { captionGeometry, type CaptionGeometry, type CueLayout, type FontMeasure, type PlacedWord, type Rect } from "./caption-layout.ts";
import { fontStack, registerBundledFonts } from "./fonts.ts";

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
    inkOverhang(text, px) {
      setPx(px);
      const metrics = ctx.measureText(text);
      return { left: Math.max(0, metrics.actualBoundingBoxLeft), right: Math.max(0, metrics.actualBoundingBoxRight - metrics.width) };
    },
    ascent,
    descent,
  };
}


/**
 * Draws captions into a band-sized canvas and reads them back as straight-alpha RGBA.
 * Layers bottom-up: background, animation boxes, then text (outlines of all words under all fills). Text and
 * outline are drawn on their own layer first when there is a shadow, so they cast it as one shape instead of
 * two overlapping ones.
 */
export class CaptionPainter {
  readonly #style: ResolvedStyle;
  readonly #band: Band;
  readonly #animation: CaptionAnimation;
  readonly #geometry: CaptionGeometry;
  readonly #canvas: Canvas;
  readonly #ctx: SKRSContext2D;
  readonly #layers = new Map<"text" | "group", Canvas>();

  constructor(style: ResolvedStyle, band: Band, animation: CaptionAnimation) {
    registerBundledFonts();
    this.#style = style;
    this.#band = band;
    this.#animation = animation;
    this.#geometry = captionGeometry(style);
    this.#canvas = createCanvas(band.width, band.height);
    this.#ctx = this.#canvas.getContext("2d");
  }

  get canvas(): Canvas {
    return this.#canvas;
  }

  /** The band's pixels with `layout`'s caption as it looks at `t` (nothing when `layout` is null). */
  paint(layout: CueLayout | null, t: number): Uint8ClampedArray {
    this.draw(layout, t);
    return this.#ctx.getImageData(0, 0, this.#band.width, this.#band.height).data;
  }

  /** Draws into `canvas` without reading it back. */
  draw(layout: CueLayout | null, t: number): void {
    const ctx = this.#ctx;
    resetLayer(ctx, this.#band);
    if (layout === null) return;
    const frame = this.#animation.frame(layout, t, this.#style);
    this.#drawBackground(ctx, layout, frame.lines);
    this.#drawBoxes(ctx, frame);
    const shadow = this.#geometry.shadow;
    if (shadow === null) {
      this.#drawText(ctx, layout, frame);
      return;
    }
    const textLayer = this.#layer("text");
    this.#drawText(textLayer.getContext("2d"), layout, frame);
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.shadowColor = this.#style.shadow.color;
    ctx.shadowBlur = shadow.blur;
    ctx.shadowOffsetX = shadow.dx;
    ctx.shadowOffsetY = shadow.dy;
    ctx.drawImage(textLayer, 0, 0);
    ctx.restore();
  }

  /** A cleared band-sized scratch canvas, transformed to frame coordinates like the band. */
  #layer(name: "text" | "group"): Canvas {
    let canvas = this.#layers.get(name);
    if (canvas === undefined) {
      canvas = createCanvas(this.#band.width, this.#band.height);
      this.#layers.set(name, canvas);
    }
    resetLayer(canvas.getContext("2d"), this.#band);
    return canvas;
  }

  #drawBackground(ctx: SKRSContext2D, layout: CueLayout, lineLooks: readonly LineLook[] | undefined): void {
    const background = this.#geometry.background;
    if (background === null) return;
    const scale = layout.fontPx / this.#geometry.fontPx;
    const padX = background.padX * scale;
    const padY = background.padY * scale;
    const radius = background.radius * scale;
    const type = this.#style.background.type;
    const shown = layout.lines
      .map((line, i) => ({ line, look: lineLooks?.[i] ?? STILL_LINE }))
      .filter(({ line, look }) => line.words.length > 0 && look.visible && look.opacity > 0);
    if (shown.length === 0) return;
    // Rectangles of one opacity share a path: where line backgrounds overlap they fill once, not twice as dark.
    const byOpacity = new Map<number, { rect: Rect; radius: number }[]>();
    const add = (opacity: number, rect: Rect, r: number) => byOpacity.set(opacity, [...(byOpacity.get(opacity) ?? []), { rect, radius: r }]);
    switch (type) {
      case "none":
        return;
      case "line":
      case "line-rounded":
        for (const { line, look } of shown) {
          const rect = { x: line.x - padX, y: line.top + look.dy - padY, width: line.width + 2 * padX, height: layout.lineHeight + 2 * padY };
          add(look.opacity, rect, type === "line-rounded" ? radius : 0);
        }
        break;
      case "box":
      case "box-rounded": {
        const first = shown[0]!;
        const last = shown.at(-1)!;
        const top = first.line.top + first.look.dy;
        const bottom = last.line.top + last.look.dy + layout.lineHeight;
        const rect = { x: layout.block.x - padX, y: top - padY, width: layout.block.width + 2 * padX, height: bottom - top + 2 * padY };
        add(Math.max(...shown.map((s) => s.look.opacity)), rect, type === "box-rounded" ? radius : 0);
        break;
      }
    }
    for (const [opacity, rects] of byOpacity) {
      ctx.beginPath();
      for (const { rect, radius: r } of rects) ctx.roundRect(rect.x, rect.y, rect.width, rect.height, r);
      ctx.save();
      ctx.globalAlpha = this.#style.background.opacity * opacity;
      ctx.fillStyle = this.#style.background.color;
      ctx.fill("nonzero");
      ctx.restore();
    }
  }

  #drawBoxes(ctx: SKRSContext2D, frame: CaptionFrame): void {
    for (const box of frame.boxes) {
      ctx.beginPath();
      ctx.roundRect(box.rect.x, box.rect.y, box.rect.width, box.rect.height, box.radius);
      ctx.fillStyle = box.color;
      ctx.fill();
    }
  }

  /**
   * Outlines of all words under all fills. Words of one opacity are drawn opaque on a layer and laid down at
   * that opacity, so a dimmed word's outline does not show through its own fill.
   */
  #drawText(ctx: SKRSContext2D, layout: CueLayout, frame: CaptionFrame): void {
    const byOpacity = new Map<number, number[]>();
    frame.words.forEach((look, i) => {
      if (look.visible && look.opacity > 0) byOpacity.set(look.opacity, [...(byOpacity.get(look.opacity) ?? []), i]);
    });
    for (const [opacity, indices] of byOpacity) {
      if (opacity >= 1) {
        this.#drawWords(ctx, layout, frame, indices);
        continue;
      }
      const group = this.#layer("group");
      this.#drawWords(group.getContext("2d"), layout, frame, indices);
      ctx.save();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.globalAlpha = opacity;
      ctx.drawImage(group, 0, 0);
      ctx.restore();
    }
  }

  #drawWords(ctx: SKRSContext2D, layout: CueLayout, frame: CaptionFrame, indices: readonly number[]): void {
    ctx.textAlign = "left";
    ctx.textBaseline = "alphabetic";
    ctx.lineJoin = "round";
    ctx.lineCap = "round";
    const outline = this.#geometry.outlineWidth * (layout.fontPx / this.#geometry.fontPx);
    for (const pass of ["outline", "fill"] as const) {
      if (pass === "outline" && outline <= 0) continue;
      for (const i of indices) {
        const word = layout.words[i];
        const look = frame.words[i];
        if (word !== undefined && look !== undefined) this.#drawWord(ctx, layout, word, look, pass, outline);
      }
    }
  }

  #drawWord(ctx: SKRSContext2D, layout: CueLayout, word: PlacedWord, look: WordLook, pass: "outline" | "fill", outline: number): void {
    const line = layout.lines[word.line];
    if (line === undefined) return;
    ctx.save();
    ctx.font = fontStack(this.#style.font_family, look.weight ?? this.#style.font_weight, this.#style.font_style, layout.fontPx);
    if (look.scale !== 1 || look.dx !== 0 || look.dy !== 0) {
      const cx = word.x + word.width / 2;
      const cy = line.top + layout.lineHeight / 2;
      ctx.translate(cx + look.dx, cy + look.dy);
      ctx.scale(look.scale, look.scale);
      ctx.translate(-cx, -cy);
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
}

const STILL_LINE: LineLook = { visible: true, opacity: 1, dy: 0 };

/** Clears a band-sized context and maps frame coordinates onto it. */
function resetLayer(ctx: SKRSContext2D, band: Band): void {
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, band.width, band.height);
  ctx.setTransform(1, 0, 0, 1, 0, -band.y);
}
