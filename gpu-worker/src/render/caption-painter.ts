import type { Canvas, SKRSContext2D } from "@napi-rs/canvas";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import type { CaptionAnimation, CaptionFrame, LineLook } from "./animations/caption-animation.ts";
import { backgroundShapes } from "./background-shapes.ts";
import type { Band, PixelArea } from "./band-layout.ts";
import { captionGeometry, type CaptionGeometry } from "./caption-geometry.ts";
import type { CueLayout } from "./caption-layout.ts";
import { ComposedWords } from "./composed-words.ts";
import { registerBundledFonts } from "./fonts.ts";
import { drawn, overlaps, repaintArea, shadowReach, wordBounds, type CaptionState } from "./repaint-area.ts";
import { beginRegion, grown, ScratchCanvases, widened, type ScratchPurpose } from "./scratch-canvases.ts";
import { drawWordsText, outlineWidth } from "./word-text.ts";
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
 *
 * Where the animation only moves, scales and fades whole words (`movesWholeWords`), shadows and words that
 * rise or fade are laid down from pictures of them drawn once per cue (ComposedWords) instead of drawn again.
 */
export class CaptionPainter {
  readonly #style: ResolvedStyle;
  readonly #band: Band;
  readonly #animation: CaptionAnimation;
  readonly #geometry: CaptionGeometry;
  readonly #scratch = new ScratchCanvases();
  /** Null: words are drawn as text every frame. */
  readonly #composed: ComposedWords | null;
  #shown: CaptionState | null = null;

  constructor(style: ResolvedStyle, band: Band, animation: CaptionAnimation) {
    registerBundledFonts();
    this.#style = style;
    this.#band = band;
    this.#animation = animation;
    this.#geometry = captionGeometry(style);
    this.#composed = animation.movesWholeWords === true ? new ComposedWords(style, this.#geometry) : null;
  }

  /** The band's pixels, straight-alpha RGBA, with `layout`'s caption as it looks at `t` (nothing when `layout` is null). */
  paint(layout: CueLayout | null, t: number): Uint8ClampedArray {
    const caption = this.#stateAt(layout, t);
    this.#composed?.showing(layout);
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
    this.#composed?.showing(layout);
    const area = repaintArea(this.#shown, caption, this.#band, this.#style, this.#geometry);
    this.#shown = caption;
    return area === null ? null : this.#patch(caption, area);
  }

  /**
   * The area `update` would repaint for `layout` at `t`, without painting it: the painter shows that caption
   * from here on. With `repaint`, a caller may paint only the updates whose pixels are still on screen later.
   */
  advance(layout: CueLayout | null, t: number): PixelArea | null {
    const caption = this.#stateAt(layout, t);
    const area = repaintArea(this.#shown, caption, this.#band, this.#style, this.#geometry);
    this.#shown = caption;
    return area;
  }

  /** `area` of the band as `update` paints it for `layout` at `t` (an area `advance` returned), whatever was shown before. */
  repaint(layout: CueLayout | null, t: number, area: PixelArea): PixelPatch {
    this.#composed?.showing(layout);
    return this.#patch(this.#stateAt(layout, t), area);
  }

  #patch(caption: CaptionState | null, area: PixelArea): PixelPatch {
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

  /** Word pictures held for the cue shown (none when every word is drawn as text): their count and pixels. */
  get heldPictures(): { pictures: number; pixels: number } {
    return this.#composed?.held ?? { pictures: 0, pixels: 0 };
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
      const words = this.#wordsIn(layout, frame, region);
      if (shadow === null) {
        this.#drawText(ctx, caption, words, region);
      } else if (this.#composed !== null && this.#composed.castsShadows(frame, words)) {
        this.#castComposedShadows(ctx, this.#composed, caption, words, region);
        this.#drawText(ctx, caption, words, region);
      } else {
        // Text reaching the region's shadow lies up to the shadow's reach beyond it.
        const reach = shadowReach(this.#geometry);
        const textRegion = grown(region, Math.ceil(reach.x) + CLIP_MARGIN, Math.ceil(reach.y) + CLIP_MARGIN);
        this.#throughLayer(ctx, "text", textRegion, region, (textCtx) => this.#drawText(textCtx, caption, this.#wordsIn(layout, frame, textRegion), textRegion), (shadowed) => {
          shadowed.shadowColor = this.#style.shadow.color;
          shadowed.shadowBlur = shadow.blur;
          shadowed.shadowOffsetX = shadow.dx;
          shadowed.shadowOffsetY = shadow.dy;
        });
      }
    }
    ctx.restore();
    return canvas;
  }

  #drawBackground(ctx: SKRSContext2D, layout: CueLayout, lineLooks: readonly LineLook[] | undefined): void {
    // Rectangles of one opacity share a path: where line backgrounds overlap they fill once, not twice as dark.
    const shapes = backgroundShapes(layout, lineLooks, this.#style.background.type, this.#geometry);
    for (const [opacity, group] of Map.groupBy(shapes, (shape) => shape.opacity)) {
      ctx.beginPath();
      for (const { rect, radius } of group) ctx.roundRect(rect.x, rect.y, rect.width, rect.height, radius);
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
   * The shadow of the words at `indices` from their shadow pictures, added up on the still transparent picture,
   * or on a layer of their own laid over the background and boxes.
   */
  #castComposedShadows(ctx: SKRSContext2D, composed: ComposedWords, { layout, frame }: CaptionState, indices: readonly number[], region: PixelArea): void {
    if (this.#geometry.background === null && frame.boxes.length === 0) {
      composed.drawShadows(ctx, layout, frame, indices);
      return;
    }
    this.#throughLayer(ctx, "shadow", region, region, (layerCtx) => composed.drawShadows(layerCtx, layout, frame, indices));
  }

  /**
   * `draw` on a scratch layer covering `layerRegion` (band pixels), then the layer laid onto `ctx`, whose drawing
   * area is `region`, with what `composite` sets (a shadow, an opacity).
   */
  #throughLayer(
    ctx: SKRSContext2D,
    purpose: ScratchPurpose,
    layerRegion: PixelArea,
    region: PixelArea,
    draw: (layerCtx: SKRSContext2D) => void,
    composite?: (ctx: SKRSContext2D) => void,
  ): void {
    const layer = this.#scratch.get(purpose, layerRegion.width, layerRegion.height);
    const layerCtx = layer.getContext("2d");
    beginRegion(layerCtx, this.#band, layerRegion);
    draw(layerCtx);
    layerCtx.restore();
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    composite?.(ctx);
    ctx.drawImage(layer, layerRegion.x - region.x, layerRegion.y - region.y);
    ctx.restore();
  }

  /** Indices of the words drawn in `frame` whose painting reaches `region` (band pixels), in layout order. */
  #wordsIn(layout: CueLayout, frame: CaptionFrame, region: PixelArea): number[] {
    const band = this.#band;
    const bounds = { left: band.x + region.x, right: band.x + region.x + region.width, top: band.y + region.y, bottom: band.y + region.y + region.height };
    const indices: number[] = [];
    frame.words.forEach((look, i) => {
      const word = layout.words[i];
      if (word !== undefined && drawn(look) && overlaps(wordBounds(layout, word, look, this.#geometry), bounds)) indices.push(i);
    });
    return indices;
  }

  /**
   * The words at `indices` (those reaching `region`, band pixels, the context's drawing area): from their
   * pictures, or as text, outlines of all words under all fills. Words of one opacity are drawn opaque on a
   * layer and laid down at that opacity, so a dimmed word's outline does not show through its own fill.
   */
  #drawText(ctx: SKRSContext2D, { layout, frame }: CaptionState, indices: readonly number[], region: PixelArea): void {
    const composed = this.#composed;
    const pictured: number[] = [];
    const asText: number[] = [];
    for (const i of indices) (composed?.pictured(frame.words[i]!) ? pictured : asText).push(i);
    composed?.drawWords(ctx, layout, frame, pictured);
    const outline = outlineWidth(this.#geometry, layout);
    const words = (group: readonly number[]) => group.map((i) => [layout.words[i]!, frame.words[i]!] as const);
    for (const [opacity, group] of Map.groupBy(asText, (i) => frame.words[i]!.opacity)) {
      if (opacity >= 1) {
        drawWordsText(ctx, this.#style, layout, words(group), outline);
        continue;
      }
      this.#throughLayer(ctx, "group", region, region, (layerCtx) => drawWordsText(layerCtx, this.#style, layout, words(group), outline), (faded) => {
        faded.globalAlpha = opacity;
      });
    }
  }
}
