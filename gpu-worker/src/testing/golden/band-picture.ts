import type { Band } from "../../render/band-layout.ts";
import type { RgbaImage } from "../../render/rgba-image.ts";
import type { PixelPatch } from "../../render/yuva-picture.ts";
import { BACKDROP } from "../../tools/sample-frame.ts";

/**
 * A caption band as a render shows it: the painter's patches (premultiplied RGBA of only what changed) laid
 * one after another on what the previous ones left, so stale pixels stay where a repaint missed them.
 */
export class PatchedBand {
  readonly #band: Band;
  readonly #pixels: Uint8Array;

  constructor(band: Band) {
    this.#band = band;
    this.#pixels = new Uint8Array(band.width * band.height * 4);
  }

  apply(patch: PixelPatch): void {
    const { area, stride, rgba } = patch;
    for (let row = 0; row < area.height; row++) {
      const from = row * stride * 4;
      this.#pixels.set(rgba.subarray(from, from + area.width * 4), ((area.y + row) * this.#band.width + area.x) * 4);
    }
  }

  /** The band over the sample frames' backdrop. */
  overBackdrop(): RgbaImage {
    return overBackdrop(this.#band, this.#pixels, "premultiplied");
  }
}

/** Band pixels (straight alpha, as CaptionPainter.paint returns them, or premultiplied) over the backdrop: opaque RGBA. */
export function overBackdrop(band: Band, pixels: ArrayLike<number>, alpha: "straight" | "premultiplied"): RgbaImage {
  const data = new Uint8ClampedArray(band.width * band.height * 4);
  for (let i = 0; i < data.length; i += 4) {
    const a = pixels[i + 3]! / 255;
    const weight = alpha === "straight" ? a : 1;
    for (let c = 0; c < 3; c++) data[i + c] = pixels[i + c]! * weight + BACKDROP[c]! * (1 - a);
    data[i + 3] = 255;
  }
  return { width: band.width, height: band.height, data };
}
