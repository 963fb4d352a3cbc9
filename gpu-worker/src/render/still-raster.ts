import type { Band } from "./band-layout.ts";
import { encodeRgbWebp, pngOfFilteredRows, upFilterRows } from "./still-encoders.ts";
import { frameToRgb, overlayCaptions, type Yuv420Frame } from "./yuv-frame.ts";
import type { YuvaPicture } from "./yuva-picture.ts";

/**
 * A background frame ready for stills: its RGB and its PNG rows are computed once, so a still of captions
 * on it converts and filters only the band's rows (a caption band is a fraction of the frame).
 */
export class StillRaster {
  readonly frame: Yuv420Frame;
  readonly #rgb: Buffer;
  readonly #filtered: Buffer;

  constructor(frame: Yuv420Frame) {
    this.frame = frame;
    this.#rgb = frameToRgb(frame);
    this.#filtered = Buffer.allocUnsafe((frame.width * 3 + 1) * frame.height);
    upFilterRows(this.#filtered, frame.width, { from: 0, to: frame.height }, (row) => this.#row(this.#rgb, row));
  }

  /** The frame with the captions laid on it as a burned video has them, as PNG. */
  async png(picture: YuvaPicture, band: Band): Promise<Buffer> {
    const { width, height } = this.frame;
    const rows = this.#bandRows(band);
    const captioned = this.#captionedRgb(picture, band, rows);
    // The row below the band is filtered against the band's last row; the rows around are the background's.
    const changed = { from: rows.from, to: Math.min(height, rows.to + 1) };
    const rowBytes = width * 3 + 1;
    const filtered = Buffer.allocUnsafe((changed.to - changed.from) * rowBytes);
    const rgbRow = (row: number) => (row >= rows.from && row < rows.to ? this.#row(captioned, row - rows.from) : this.#row(this.#rgb, row));
    upFilterRows(filtered, width, changed, rgbRow);
    const [above, below] = [this.#filtered.subarray(0, changed.from * rowBytes), this.#filtered.subarray(changed.to * rowBytes)];
    return pngOfFilteredRows(width, height, [above, filtered, below]);
  }

  /** The same, as lossy WebP. */
  async webp(picture: YuvaPicture, band: Band): Promise<Buffer> {
    const rows = this.#bandRows(band);
    const rgb = Buffer.from(this.#rgb);
    rgb.set(this.#captionedRgb(picture, band, rows), rows.from * this.frame.width * 3);
    return encodeRgbWebp(this.frame.width, this.frame.height, rgb);
  }

  #bandRows(band: Band): { from: number; to: number } {
    return { from: Math.min(band.y, this.frame.height), to: Math.min(band.y + band.height, this.frame.height) };
  }

  /** RGB of the band's rows with the captions on them (only those rows of the frame copied). */
  #captionedRgb(picture: YuvaPicture, band: Band, rows: { from: number; to: number }): Buffer {
    if (rows.to <= rows.from) return Buffer.alloc(0);
    const part = this.frame.rows(rows.from, rows.to);
    overlayCaptions(part, picture, { ...band, y: band.y - rows.from });
    return frameToRgb(part);
  }

  #row(rgb: Buffer, row: number): Buffer {
    const stride = this.frame.width * 3;
    return rgb.subarray(row * stride, (row + 1) * stride);
  }
}
