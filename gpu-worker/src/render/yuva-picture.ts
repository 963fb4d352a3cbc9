import type { PixelArea } from "./band-layout.ts";

/** Premultiplied RGBA of an area of a picture, `stride` pixels to a row, the area's top left pixel first. */
export interface PixelPatch {
  area: PixelArea;
  stride: number;
  rgba: Uint8Array;
}

// BT.601 limited range, the matrix ffmpeg uses for RGB when nothing says otherwise, so colours come out as
// ffmpeg's own conversion made them: Y = 16 + (65.481 R + 128.553 G + 24.966 B) / 255,
// U = 128 + (-37.797 R - 74.203 G + 112 B) / 255, V = 128 + (112 R - 93.786 G - 18.214 B) / 255 for straight
// R, G, B in 0..255. The coefficients are written out in the loop: V8 then folds them into the code.
export const RECIPROCAL = Float64Array.from({ length: 256 }, (_, a) => (a === 0 ? 0 : 1 / a));
const TRANSPARENT_PAIR = 0x1010; // two pixels of black luma (16)

// Pixels are read as 32-bit words and luma and alpha written as 16-bit pairs, in the machine's byte order.
if (new Uint8Array(Uint16Array.of(1).buffer)[0] !== 1) throw new Error("yuva-picture assumes a little-endian machine");

/**
 * A picture in yuva420p (planes Y, U, V at half width and height, A), the format ffmpeg's overlay blends onto
 * yuv420p video as it is, so ffmpeg converts nothing. Kept between frames: only what changed is converted again.
 */
export class YuvaPicture {
  readonly width: number;
  readonly height: number;
  /** All four planes, ready to send; changes in place on update. */
  readonly bytes: Buffer;
  // Luma and alpha are written two pixels at a time.
  readonly #y: Uint16Array;
  readonly #u: Uint8Array;
  readonly #v: Uint8Array;
  readonly #a: Uint16Array;

  constructor(width: number, height: number) {
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 2 || height < 2 || width % 2 !== 0 || height % 2 !== 0) {
      throw new RangeError(`A yuva420p picture needs an even size, got ${width}x${height}`);
    }
    this.width = width;
    this.height = height;
    const luma = width * height;
    const chroma = luma / 4;
    const buffer = new ArrayBuffer(2 * luma + 2 * chroma);
    this.bytes = Buffer.from(buffer);
    this.#y = new Uint16Array(buffer, 0, luma / 2).fill(TRANSPARENT_PAIR);
    this.#u = new Uint8Array(buffer, luma, chroma).fill(128);
    this.#v = new Uint8Array(buffer, luma + chroma, chroma).fill(128);
    this.#a = new Uint16Array(buffer, luma + 2 * chroma, luma / 2);
  }

  /**
   * Converts the patch's pixels into the planes; its area must lie on even rows and columns. A chroma sample
   * is the alpha-weighted mean of its 2x2 block (the premultiplied sum over the alpha sum), so transparent
   * pixels do not tint the edges of what is drawn.
   */
  update(patch: PixelPatch): void {
    const { area, stride, rgba } = patch;
    if (area.x % 2 !== 0 || area.y % 2 !== 0 || area.width % 2 !== 0 || area.height % 2 !== 0) {
      throw new RangeError(`Area ${JSON.stringify(area)} does not lie on even rows and columns`);
    }
    if (area.x < 0 || area.y < 0 || area.x + area.width > this.width || area.y + area.height > this.height) {
      throw new RangeError(`Area ${JSON.stringify(area)} is outside the ${this.width}x${this.height} picture`);
    }
    if (stride < area.width || rgba.byteLength < ((area.height - 1) * stride + area.width) * 4) {
      throw new RangeError(`${rgba.byteLength} bytes at a stride of ${stride} do not hold a ${area.width}x${area.height} area`);
    }
    if (rgba.byteOffset % 4 !== 0) throw new RangeError("RGBA must start on a 4-byte boundary");
    const pixels = new Uint32Array(rgba.buffer, rgba.byteOffset, Math.floor(rgba.byteLength / 4));
    convert(pixels, stride, area, this.width, this.#y, this.#u, this.#v, this.#a);
  }
}

// A pixel word has R in its low byte and A in its high one; a pair's low byte is its left pixel.
function convert(
  pixels: Uint32Array,
  stride: number,
  area: PixelArea,
  width: number,
  lumaY: Uint16Array,
  chromaU: Uint8Array,
  chromaV: Uint8Array,
  lumaA: Uint16Array,
): void {
  const halfWidth = width / 2;
  const pairs = area.width / 2;
  for (let row = 0; row < area.height; row += 2) {
    const top = row * stride;
    const bottom = top + stride;
    const pairTop = ((area.y + row) * width + area.x) / 2;
    const pairBottom = pairTop + halfWidth;
    const chroma = ((area.y + row) / 2) * halfWidth + area.x / 2;
    for (let k = 0; k < pairs; k++) {
      const v00 = pixels[top + 2 * k]!;
      const v01 = pixels[top + 2 * k + 1]!;
      const v10 = pixels[bottom + 2 * k]!;
      const v11 = pixels[bottom + 2 * k + 1]!;
      // Most of a caption band is empty.
      if ((v00 | v01 | v10 | v11) === 0) {
        lumaY[pairTop + k] = TRANSPARENT_PAIR;
        lumaY[pairBottom + k] = TRANSPARENT_PAIR;
        lumaA[pairTop + k] = 0;
        lumaA[pairBottom + k] = 0;
        chromaU[chroma + k] = 128;
        chromaV[chroma + k] = 128;
        continue;
      }
      lumaY[pairTop + k] = luma(v00) | (luma(v01) << 8);
      lumaY[pairBottom + k] = luma(v10) | (luma(v11) << 8);
      lumaA[pairTop + k] = (v00 >>> 24) | ((v01 >>> 24) << 8);
      lumaA[pairBottom + k] = (v10 >>> 24) | ((v11 >>> 24) << 8);
      const sa = (v00 >>> 24) + (v01 >>> 24) + (v10 >>> 24) + (v11 >>> 24);
      const sr = (v00 & 0xff) + (v01 & 0xff) + (v10 & 0xff) + (v11 & 0xff);
      const sg = ((v00 >>> 8) & 0xff) + ((v01 >>> 8) & 0xff) + ((v10 >>> 8) & 0xff) + ((v11 >>> 8) & 0xff);
      const sb = ((v00 >>> 16) & 0xff) + ((v01 >>> 16) & 0xff) + ((v10 >>> 16) & 0xff) + ((v11 >>> 16) & 0xff);
      const inverse = 1 / sa;
      chromaU[chroma + k] = (128.5 + (-37.797 * sr - 74.203 * sg + 112 * sb) * inverse) | 0;
      chromaV[chroma + k] = (128.5 + (112 * sr - 93.786 * sg - 18.214 * sb) * inverse) | 0;
    }
  }
}

/** Luma of a premultiplied pixel: straight R is 255 r / a, so the 255 cancels; r <= a keeps it in 16..235. */
export function luma(pixel: number): number {
  return (16.5 + (65.481 * (pixel & 0xff) + 128.553 * ((pixel >>> 8) & 0xff) + 24.966 * ((pixel >>> 16) & 0xff)) * RECIPROCAL[pixel >>> 24]!) | 0;
}
