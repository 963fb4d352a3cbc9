import { PRORES_SLICE_ROW, tileColumns, type TileColumn } from "../media/prores-frames.ts";
import { enclosing, type Band, type PixelArea } from "./band-layout.ts";
import { luma, RECIPROCAL, type PixelPatch } from "./yuva-picture.ts";

// The overlay MOV's picture: the rows of ProRes slices the band lies in, across the frame, in 4:4:4 (ProRes
// 4444 keeps full chroma, so each pixel's colour is converted on its own, not the 4:2:0 picture's 2×2 means)
// with 8-bit alpha, planar as ffmpeg's yuva444p. The picture is cut into tiles (16 rows of a tile column,
// media/prores-frames.ts): only a tile whose pixels changed since it was last taken is encoded again.

/** A tile whose pixels changed: its place in the frame's grid of tiles and its picture (yuva444p, 16 rows). */
export interface ChangedTile {
  /** Slice row of the frame. */
  row: number;
  column: number;
  picture: Buffer;
}

const [TRANSPARENT_Y, NEUTRAL_CHROMA] = [16, 128];

export class Yuva444Strip {
  readonly columns: readonly TileColumn[];
  readonly #width: number;
  readonly #band: Band;
  /** The frame's first slice row in the strip, and the strip's last row that lies in the frame. */
  readonly #firstRow: number;
  readonly #lastPixelRow: number;
  readonly #rows: number;
  readonly #planes: [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  /** Each tile's picture as last taken (row after row of columns); null: as empty as the canvas. */
  readonly #taken: (Buffer | null)[];
  readonly #empty = new Map<number, Buffer>();
  /** What the updates since the last take reached, in the strip's pixels. */
  #dirty: PixelArea | null = null;

  constructor(frame: { width: number; height: number }, band: Band) {
    this.#width = frame.width;
    this.#band = band;
    this.#firstRow = Math.floor(band.y / PRORES_SLICE_ROW);
    this.#rows = Math.ceil((band.y + band.height) / PRORES_SLICE_ROW) - this.#firstRow;
    this.#lastPixelRow = frame.height - 1 - this.#firstRow * PRORES_SLICE_ROW;
    this.columns = tileColumns(frame.width);
    const size = frame.width * this.#rows * PRORES_SLICE_ROW;
    const plane = (value: number) => new Uint8Array(size).fill(value);
    this.#planes = [plane(TRANSPARENT_Y), plane(NEUTRAL_CHROMA), plane(NEUTRAL_CHROMA), plane(0)];
    this.#taken = new Array<Buffer | null>(this.#rows * this.columns.length).fill(null);
  }

  /** Converts the patch (an area of the band, premultiplied RGBA) into the strip. */
  update(patch: PixelPatch): void {
    const { area, stride, rgba } = patch;
    if (area.x < 0 || area.y < 0 || area.x + area.width > this.#band.width || area.y + area.height > this.#band.height) {
      throw new RangeError(`Area ${JSON.stringify(area)} is outside the ${this.#band.width}x${this.#band.height} band`);
    }
    if (rgba.byteOffset % 4 !== 0 || rgba.byteLength < ((area.height - 1) * stride + area.width) * 4) throw new RangeError("RGBA does not hold the area");
    const pixels = new Uint32Array(rgba.buffer, rgba.byteOffset, Math.floor(rgba.byteLength / 4));
    const left = this.#band.x + area.x;
    const top = this.#band.y - this.#firstRow * PRORES_SLICE_ROW + area.y;
    const y = this.#planes[0];
    const u = this.#planes[1];
    const v = this.#planes[2];
    const a = this.#planes[3];
    for (let row = 0; row < area.height; row++) {
      let at = (top + row) * this.#width + left;
      for (let k = row * stride, end = k + area.width; k < end; k++, at++) {
        const pixel = pixels[k]!;
        const alpha = pixel >>> 24;
        a[at] = alpha;
        if (alpha === 0) {
          y[at] = TRANSPARENT_Y;
          u[at] = NEUTRAL_CHROMA;
          v[at] = NEUTRAL_CHROMA;
          continue;
        }
        const r = pixel & 0xff;
        const g = (pixel >>> 8) & 0xff;
        const b = (pixel >>> 16) & 0xff;
        const inverse = RECIPROCAL[alpha]!;
        y[at] = luma(pixel);
        u[at] = (128.5 + (-37.797 * r - 74.203 * g + 112 * b) * inverse) | 0;
        v[at] = (128.5 + (112 * r - 93.786 * g - 18.214 * b) * inverse) | 0;
      }
    }
    const reached = { x: left, y: top, width: area.width, height: area.height };
    this.#dirty = enclosing(this.#dirty ?? reached, reached);
  }

  /** The tiles the updates since the last call reach whose pictures differ from what they were when last taken. */
  takeChanged(): ChangedTile[] {
    const dirty = this.#dirty;
    this.#dirty = null;
    if (dirty === null || dirty.width <= 0 || dirty.height <= 0) return [];
    const changed: ChangedTile[] = [];
    for (let row = Math.floor(dirty.y / PRORES_SLICE_ROW); row < Math.ceil((dirty.y + dirty.height) / PRORES_SLICE_ROW); row++) {
      this.columns.forEach((column, index) => {
        if (column.x >= dirty.x + dirty.width || column.x + column.width <= dirty.x) return;
        const slot = row * this.columns.length + index;
        if (this.#holds(row, column, this.#taken[slot] ?? this.#emptyTile(column))) return;
        const picture = this.#tilePicture(row, column);
        this.#taken[slot] = picture;
        changed.push({ row: this.#firstRow + row, column: index, picture });
      });
    }
    return changed;
  }

  /**
   * The tile's rows where they lie, plane after plane (yuva444p's order); rows past the frame's bottom repeat its
   * last row, as the encoder fills a partial macroblock.
   */
  *#tileRows(row: number, column: TileColumn): Generator<Uint8Array> {
    for (const plane of this.#planes) {
      for (let k = 0; k < PRORES_SLICE_ROW; k++) {
        const from = Math.min(row * PRORES_SLICE_ROW + k, this.#lastPixelRow) * this.#width + column.x;
        yield plane.subarray(from, from + column.width);
      }
    }
  }

  #tilePicture(row: number, column: TileColumn): Buffer {
    return Buffer.concat([...this.#tileRows(row, column)]);
  }

  /** Whether the tile's pixels are `picture` (#tilePicture's layout), compared where they lie. */
  #holds(row: number, column: TileColumn, picture: Buffer): boolean {
    let at = 0;
    for (const pixels of this.#tileRows(row, column)) {
      if (Buffer.compare(pixels, picture.subarray(at, at + column.width)) !== 0) return false;
      at += column.width;
    }
    return true;
  }

  #emptyTile(column: TileColumn): Buffer {
    const plane = PRORES_SLICE_ROW * column.width;
    let empty = this.#empty.get(column.width);
    if (empty === undefined) {
      empty = Buffer.concat([Buffer.alloc(plane, TRANSPARENT_Y), Buffer.alloc(2 * plane, NEUTRAL_CHROMA), Buffer.alloc(plane, 0)]);
      this.#empty.set(column.width, empty);
    }
    return empty;
  }
}
