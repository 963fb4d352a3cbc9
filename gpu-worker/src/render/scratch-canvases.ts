import { createCanvas, type Canvas, type SKRSContext2D } from "@napi-rs/canvas";
import type { Band, PixelArea } from "./band-layout.ts";

// The canvases the painter draws a part of the band on, and the regions it maps onto them.

const SCRATCH_STEP = { width: 32, height: 16 };
const SCRATCH_KEPT = 8;
// A kept canvas serves a smaller part while it has at most this many times the pixels needed.
const SCRATCH_SLACK = 1.5;

/** `area` grown by `margin` on every side, inside the band. */
export function widened(area: PixelArea, margin: number, band: Band): PixelArea {
  const x = Math.max(0, area.x - margin);
  const y = Math.max(0, area.y - margin);
  return { x, y, width: Math.min(band.width, area.x + area.width + margin) - x, height: Math.min(band.height, area.y + area.height + margin) - y };
}

/** `area` grown by `dx` left and right and `dy` above and below, reaching past the band if need be. */
export function grown(area: PixelArea, dx: number, dy: number): PixelArea {
  return { x: area.x - dx, y: area.y - dy, width: area.width + 2 * dx, height: area.height + 2 * dy };
}

/**
 * Saves the context, clears the canvas, limits drawing to its top left `region.width` x `region.height`
 * pixels and maps frame coordinates so that they show `region` of the band; the caller restores the context.
 */
export function beginRegion(ctx: SKRSContext2D, band: Band, region: PixelArea): void {
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  ctx.beginPath();
  ctx.rect(0, 0, region.width, region.height);
  ctx.clip();
  ctx.setTransform(1, 0, 0, 1, -(band.x + region.x), -(band.y + region.y));
}

/** What a scratch canvas is for: one is kept per purpose, as each can be in use beside the others. */
export type ScratchPurpose = "picture" | "text" | "group" | "shadow";

/**
 * Canvases kept for reuse by purpose, so that painting does not create one per frame: the smallest kept one
 * that fits and is not much larger than needed, else a new one with its size rounded up. A few per purpose,
 * the least recently used dropped.
 */
export class ScratchCanvases {
  readonly #byPurpose = new Map<string, Canvas[]>();

  get(purpose: ScratchPurpose, width: number, height: number): Canvas {
    const kept = this.#byPurpose.get(purpose) ?? [];
    const fitting = kept
      .filter((c) => c.width >= width && c.height >= height && c.width * c.height <= SCRATCH_SLACK * width * height)
      .sort((a, b) => a.width * a.height - b.width * b.height)[0];
    const canvas =
      fitting ?? createCanvas(Math.ceil(width / SCRATCH_STEP.width) * SCRATCH_STEP.width, Math.ceil(height / SCRATCH_STEP.height) * SCRATCH_STEP.height);
    this.#byPurpose.set(purpose, [canvas, ...kept.filter((c) => c !== canvas)].slice(0, SCRATCH_KEPT));
    return canvas;
  }
}
