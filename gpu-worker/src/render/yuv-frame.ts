import type { Band } from "./band-layout.ts";
import type { YuvaPicture } from "./yuva-picture.ts";

/**
 * A video frame in yuv420p (planes Y, U, V; chroma at half the size, rounded up), as ffmpeg decodes and
 * blends them: a preview is made in the very pixels of a rendered job's frame.
 */
export class Yuv420Frame {
  readonly width: number;
  readonly height: number;
  /** All three planes, as ffmpeg's rawvideo yuv420p. */
  readonly bytes: Buffer;
  readonly y: Uint8Array;
  readonly u: Uint8Array;
  readonly v: Uint8Array;

  constructor(width: number, height: number, bytes?: Buffer) {
    const luma = width * height;
    const chroma = Math.ceil(width / 2) * Math.ceil(height / 2);
    if (bytes !== undefined && bytes.length !== luma + 2 * chroma) throw new RangeError(`${bytes.length} bytes are no ${width}x${height} yuv420p frame`);
    this.width = width;
    this.height = height;
    this.bytes = bytes ?? Buffer.alloc(luma + 2 * chroma);
    this.y = this.bytes.subarray(0, luma);
    this.u = this.bytes.subarray(luma, luma + chroma);
    this.v = this.bytes.subarray(luma + chroma);
  }

  clone(): Yuv420Frame {
    return new Yuv420Frame(this.width, this.height, Buffer.from(this.bytes));
  }

  /** A copy of rows [from, to) as a frame of their own; `from` is even, so that the chroma rows split with them. */
  rows(from: number, to: number): Yuv420Frame {
    if (from % 2 !== 0 || from < 0 || to <= from || to > this.height) throw new RangeError(`rows ${from}–${to} of a ${this.height}-row frame`);
    const part = new Yuv420Frame(this.width, to - from);
    const chromaWidth = Math.ceil(this.width / 2);
    const [first, end] = [(from / 2) * chromaWidth, Math.ceil(to / 2) * chromaWidth];
    part.y.set(this.y.subarray(from * this.width, to * this.width));
    part.u.set(this.u.subarray(first, end));
    part.v.set(this.v.subarray(first, end));
    return part;
  }
}

// The checkerboard's two mid greys, light and dark captions both readable on them, as the captions' own
// conversion (BT.601, limited range) makes #808080 and #5F5F5F.
const LIGHT = 126;
const DARK = 98;

/** A neutral checkerboard: squares of about a fortieth of the short side, on even rows and columns. */
export function checkerboard(width: number, height: number): Yuv420Frame {
  const frame = new Yuv420Frame(width, height);
  const square = Math.max(8, Math.round(Math.min(width, height) / 40 / 2) * 2);
  for (let row = 0; row < height; row++) {
    const band = Math.floor(row / square);
    for (let column = 0; column < width; column++) frame.y[row * width + column] = (band + Math.floor(column / square)) % 2 === 0 ? LIGHT : DARK;
  }
  frame.u.fill(128);
  frame.v.fill(128);
  return frame;
}

const fastDiv255 = (x: number) => ((x + 128) * 257) >>> 16;

/**
 * Lays the caption band's picture (yuva420p, straight alpha) on the frame at the band's place, exactly as
 * ffmpeg's overlay filter does it for a burned video (alpha=straight onto yuv420p): each plane
 * d = (d·(255 − a) + s·a) / 255 rounded as FAST_DIV255, a chroma sample's alpha the mean (rounded down) of its
 * 2×2 luma alphas, but along the band's last chroma row and column, where ffmpeg averages as below.
 */
export function overlayCaptions(frame: Yuv420Frame, picture: YuvaPicture, band: Band): void {
  const { width: bw, height: bh } = picture;
  const luma = bw * bh;
  const chroma = luma / 4;
  const source = picture.bytes;
  const sy = source.subarray(0, luma);
  const su = source.subarray(luma, luma + chroma);
  const sv = source.subarray(luma + chroma, luma + 2 * chroma);
  const sa = source.subarray(luma + 2 * chroma);
  const rows = Math.min(bh, frame.height - band.y);
  const columns = Math.min(bw, frame.width - band.x);
  for (let row = 0; row < rows; row++) {
    const from = row * bw;
    const to = (band.y + row) * frame.width + band.x;
    for (let k = 0; k < columns; k++) {
      const a = sa[from + k]!;
      if (a === 0) continue;
      frame.y[to + k] = fastDiv255(frame.y[to + k]! * (255 - a) + sy[from + k]! * a);
    }
  }
  const cw = bw / 2;
  const ch = bh / 2;
  const frameCw = Math.ceil(frame.width / 2);
  const chromaRows = Math.min(ch, Math.ceil(frame.height / 2) - band.y / 2);
  const chromaColumns = Math.min(cw, frameCw - band.x / 2);
  for (let j = 0; j < chromaRows; j++) {
    for (let k = 0; k < chromaColumns; k++) {
      const a = 2 * j * bw + 2 * k;
      let alpha: number;
      if (j + 1 < ch && k + 1 < cw) {
        alpha = (sa[a]! + sa[a + bw]! + sa[a + 1]! + sa[a + bw + 1]!) >> 2;
      } else {
        const horizontal = k + 1 < cw ? (sa[a]! + sa[a + 1]!) >> 1 : sa[a]!;
        const vertical = j + 1 < ch ? (sa[a]! + sa[a + bw]!) >> 1 : sa[a]!;
        alpha = (horizontal + vertical) >> 1;
      }
      if (alpha === 0) continue;
      const s = j * cw + k;
      const d = (band.y / 2 + j) * frameCw + band.x / 2 + k;
      frame.u[d] = fastDiv255(frame.u[d]! * (255 - alpha) + su[s]! * alpha);
      frame.v[d] = fastDiv255(frame.v[d]! * (255 - alpha) + sv[s]! * alpha);
    }
  }
}

// BT.601 limited range back to RGB, the inverse of the captions' own conversion (yuva-picture.ts), in 16.16
// fixed point from tables: R = Y' + 1.596 V', G = Y' − 0.392 U' − 0.813 V', B = Y' + 2.017 U'.
const FIXED = 65536;
const Y_TABLE = Int32Array.from({ length: 256 }, (_, y) => Math.round(((y - 16) * 255 * FIXED) / 219) + FIXED / 2);
const chromaTable = (factor: number) => Int32Array.from({ length: 256 }, (_, c) => Math.round(((c - 128) * 255 * factor * FIXED) / 224));
const R_V = chromaTable(1.402);
const G_U = chromaTable((-1.772 * 0.114) / 0.587);
const G_V = chromaTable((-1.402 * 0.299) / 0.587);
const B_U = chromaTable(1.772);
const clamp = (fixed: number) => (fixed < 0 ? 0 : fixed >= 256 * FIXED ? 255 : fixed >> 16);

/** Rows [from, to) of the frame (all by default) as RGB, 3 bytes a pixel, each chroma sample covering its 2×2 pixels. */
export function frameToRgb(frame: Yuv420Frame, rows: { from: number; to: number } = { from: 0, to: frame.height }): Buffer {
  const { width } = frame;
  const rgb = Buffer.allocUnsafe(width * (rows.to - rows.from) * 3);
  const cw = Math.ceil(width / 2);
  let o = 0;
  for (let row = rows.from; row < rows.to; row++) {
    const chromaRow = (row >> 1) * cw;
    for (let column = 0; column < width; column++) {
      const c = chromaRow + (column >> 1);
      const y = Y_TABLE[frame.y[row * width + column]!]!;
      const u = frame.u[c]!;
      const v = frame.v[c]!;
      rgb[o++] = clamp(y + R_V[v]!);
      rgb[o++] = clamp(y + G_U[u]! + G_V[v]!);
      rgb[o++] = clamp(y + B_U[u]!);
    }
  }
  return rgb;
}
