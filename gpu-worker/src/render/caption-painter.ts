import type { Canvas, SKRSContext2D } from "@napi-rs/canvas";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import type { CaptionAnimation, CaptionFrame, LineLook, WordLook } from "./animations/caption-animation.ts";
import { backgroundShapes, type BackgroundShape } from "./background-shapes.ts";
import type { Band, PixelArea } from "./band-layout.ts";
import { captionGeometry, type CaptionGeometry } from "./caption-geometry.ts";
import type { CueLayout, PlacedWord } from "./caption-layout.ts";
import { fontStack, registerBundledFonts } from "./fonts.ts";
import { drawn, overlaps, repaintArea, shadowReach, wordBounds, type CaptionState } from "./repaint-area.ts";
import { beginRegion, grown, ScratchCanvases, widened } from "./scratch-canvases.ts";
import type { PixelPatch } from "./yuva-picture.ts";

// Pixels drawn around a repainted area (see update).
const CLIP_MARGIN = 4;

/**
 * Draws captions for a band of the frame. Layers bottom-up: background, animation boxes, then text (outlines of
 * all words under all fills). Text and outline are drawn on their own layer first when there is a shadow, so
 * they cast it as one shape instead of two overlapping ones.
 *
 * Only the part of the band that changes is painted: each paint draws into canvases the size of that part (a
 * band-sized canvas would cost a copy of all of it whenever Skia snapshots it, and garbage collection by its
 * size whenever its pixels are read).
 */
export class CaptionPainter {
  readonly #style: ResolvedStyle;
  readonly #band: Band;
  readonly #animation: CaptionAnimation;
  readonly #geometry: CaptionGeometry;
  readonly #scratch = new ScratchCanvases();
  #shown: CaptionState | null = null;

  constructor(style: ResolvedStyle, band: Band, animation: CaptionAnimation) {
    registerBundledFonts();
    this.#style = style;
    this.#band = band;
    this.#animation = animation;
    this.#geometry = captionGeometry(style);
  }

  /** The band's pixels, straight-alpha RGBA, with `layout`'s caption as it looks at `t` (nothing when `layout` is null). */
  paint(layout: CueLayout | null, t: number): Uint8ClampedArray {
    const caption = this.#stateAt(layout, t);
    const { width, height } = this.#band;
    const canvas = this.#paintRegion(caption, { x: 0, y: 0, width, height });
    this.#shown = caption;
    return canvas.getContext("2d").getImageData(0, 0, width, height).data;
  }

  /**
   * Paints `layout`'s caption at `t` (nothing when `layout` is null) where it differs from what the last call
   * showed: the pixels of that part of the band, valid until the next call, or null when nothing changed.
   */
  update(layout: CueLayout | null, t: number): PixelPatch | null {
    const caption = this.#stateAt(layout, t);
    const area = repaintArea(this.#shown, caption, this.#band, this.#style, this.#geometry);
    this.#shown = caption;
    if (area === null) return null;
    // Drawing reaches a little past the area: Skia anti-aliases edges that cross a clip a little differently,
    // so the area's own pixels come out as in a full repaint.
    const region = widened(area, CLIP_MARGIN, this.#band);
    const canvas = this.#paintRegion(caption, region);
    const stride = canvas.width;
    const offset = ((area.y - region.y) * stride + (area.x - region.x)) * 4;
    // data() is premultiplied RGBA, without getImageData's slow conversion; a view of memory the canvas reuses,
    // so valid until it is drawn on again.
    return { area, stride, rgba: canvas.data().subarray(offset) };
  }

  #stateAt(layout: CueLayout | null, t: number): CaptionState | null {
    return layout === null ? null : { layout, frame: this.#animation.frame(layout, t, this.#style) };
  }

  /** A canvas whose top left `region.width` x `region.height` pixels hold `caption`'s picture of that part of the band. */
  #paintRegion(caption: CaptionState | null, region: PixelArea): Canvas {
    const canvas = this.#scratch.get("picture", region.width, region.height);
    const ctx = canvas.getContext("2d");
    beginRegion(ctx, this.#band, region);
    if (caption !== null) {
      const { layout, frame } = caption;
      this.#drawBackground(ctx, layout, frame.lines);
      this.#drawBoxes(ctx, frame);
      const shadow = this.#geometry.shadow;
      if (shadow === null) {
        this.#drawText(ctx, layout, frame, region);
      } else {
        // Text reaching the region's shadow lies up to the shadow's reach beyond it.
        const reach = shadowReach(this.#geometry);
        const textRegion = grown(region, Math.ceil(reach.x) + CLIP_MARGIN, Math.ceil(reach.y) + CLIP_MARGIN);
        const textLayer = this.#scratch.get("text", textRegion.width, textRegion.height);
        const textCtx = textLayer.getContext("2d");
        beginRegion(textCtx, this.#band, textRegion);
        this.#drawText(textCtx, layout, frame, textRegion);
        textCtx.restore();
        ctx.save();
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.shadowColor = this.#style.shadow.color;
        ctx.shadowBlur = shadow.blur;
        ctx.shadowOffsetX = shadow.dx;
        ctx.shadowOffsetY = shadow.dy;
        ctx.drawImage(textLayer, textRegion.x - region.x, textRegion.y - region.y);
        ctx.restore();
      }
    }
    ctx.restore();
    return canvas;
  }

  #drawBackground(ctx: SKRSContext2D, layout: CueLayout, lineLooks: readonly LineLook[] | undefined): void {
    // Rectangles of one opacity share a path: where line backgrounds overlap they fill once, not twice as dark.
    const byOpacity = new Map<number, BackgroundShape[]>();
    for (const shape of backgroundShapes(layout, lineLooks, this.#style.background.type, this.#geometry)) {
      const group = byOpacity.get(shape.opacity);
      if (group) group.push(shape);
      else byOpacity.set(shape.opacity, [shape]);
    }
    for (const [opacity, shapes] of byOpacity) {
      ctx.beginPath();
      for (const { rect, radius } of shapes) ctx.roundRect(rect.x, rect.y, rect.width, rect.height, radius);
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
   * Outlines of all words under all fills, of the words that reach `region` (band pixels, the context's
   * drawing area). Words of one opacity are drawn opaque on a layer and laid down at that opacity, so a dimmed
   * word's outline does not show through its own fill.
   */
  #drawText(ctx: SKRSContext2D, layout: CueLayout, frame: CaptionFrame, region: PixelArea): void {
    const band = this.#band;
    const bounds = { left: band.x + region.x, right: band.x + region.x + region.width, top: band.y + region.y, bottom: band.y + region.y + region.height };
    const byOpacity = new Map<number, number[]>();
    frame.words.forEach((look, i) => {
      const word = layout.words[i];
      if (word === undefined || !drawn(look)) return;
      if (!overlaps(wordBounds(layout, word, look, this.#geometry), bounds)) return;
      const group = byOpacity.get(look.opacity);
      if (group) group.push(i);
      else byOpacity.set(look.opacity, [i]);
    });
    for (const [opacity, indices] of byOpacity) {
      if (opacity >= 1) {
        this.#drawWords(ctx, layout, frame, indices);
        continue;
      }
      const group = this.#scratch.get("group", region.width, region.height);
      const groupCtx = group.getContext("2d");
      beginRegion(groupCtx, band, region);
      this.#drawWords(groupCtx, layout, frame, indices);
      groupCtx.restore();
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
