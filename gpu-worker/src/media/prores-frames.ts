// ProRes frames taken apart into their independently coded slices, and put back together from slices coded
// apart. A ProRes picture is a grid of slices (16 rows of pixels each, a few macroblocks wide), each coded on
// its own with the quantiser in its own header: with a fixed quantiser (no rate control looking at the whole
// picture), a slice's bytes are a function of its pixels alone. A tile (16 rows of a tile column, tileColumns)
// encoded as a picture of its own is therefore coded as the very slices the encoder writes for that place of
// the whole frame; the right edge's partial macroblocks are filled by the encoder alike, since the tile ends
// where the frame does.

/** Rows of pixels in a row of slices (progressive frames; ProRes slices are one macroblock high). */
export const PRORES_SLICE_ROW = 16;

/** A progressive ProRes frame: its frame header, and its slices in raster order. */
export interface ProresFrame {
  /** The frame header (after the frame's size and 'icpf'): its size, version, creator, size of the picture… */
  header: Buffer;
  width: number;
  height: number;
  /** The picture header's byte holding log2 of the slice's width and height in macroblocks. */
  sliceShape: number;
  /** Every slice's coded bytes, row after row of the picture. */
  slices: Buffer[];
  /** Slices in one row of the picture. */
  slicesPerRow: number;
}

const PICTURE_HEADER_SIZE = 8;

/** The frame's parts; throws on anything but one progressive picture laid out as prores_ks writes it. */
export function parseProresFrame(bytes: Buffer): ProresFrame {
  if (bytes.length < 28 || bytes.toString("latin1", 4, 8) !== "icpf") throw new Error("not a ProRes frame");
  if (bytes.readUInt32BE(0) !== bytes.length) throw new Error(`ProRes frame says ${bytes.readUInt32BE(0)} bytes, holds ${bytes.length}`);
  const headerSize = bytes.readUInt16BE(8);
  const header = bytes.subarray(8, 8 + headerSize);
  const width = header.readUInt16BE(8);
  const height = header.readUInt16BE(10);
  // Bits 2–3 of the flags byte: 0 is a progressive frame, one picture.
  if (((header[12]! >> 2) & 3) !== 0) throw new Error("an interlaced ProRes frame");
  const picture = 8 + headerSize;
  const pictureHeaderSize = bytes[picture]! >> 3;
  if (pictureHeaderSize !== PICTURE_HEADER_SIZE) throw new Error(`ProRes picture header of ${pictureHeaderSize} bytes`);
  const pictureSize = bytes.readUInt32BE(picture + 1);
  if (picture + pictureSize !== bytes.length) throw new Error("a ProRes frame of more than one picture");
  const count = bytes.readUInt16BE(picture + 5);
  const sliceShape = bytes[picture + 7]!;
  const macroblockRows = Math.ceil(height / PRORES_SLICE_ROW);
  if ((sliceShape & 0xf) !== 0 || count % macroblockRows !== 0) throw new Error(`${count} ProRes slices do not make ${macroblockRows} rows`);
  const table = picture + PICTURE_HEADER_SIZE;
  const slices: Buffer[] = [];
  let offset = table + 2 * count;
  for (let i = 0; i < count; i++) {
    const size = bytes.readUInt16BE(table + 2 * i);
    if (offset + size > bytes.length) throw new Error(`ProRes slice ${i} runs past the frame`);
    slices.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  if (offset !== bytes.length) throw new Error("ProRes slices do not fill the picture");
  return { header, width, height, sliceShape, slices, slicesPerRow: count / macroblockRows };
}

/** Pixels across one tile: a slice of 8 macroblocks, what prores_ks codes a row of slices in before its last ones. */
const PRORES_TILE_WIDTH = 128;

/** A column of tiles: `width` pixels from `x`, coded as `slices` slices (the row's last, narrower ones in the last column). */
export interface TileColumn {
  x: number;
  width: number;
  /** The column's first slice in a row of the frame's slices. */
  firstSlice: number;
  slices: number;
}

/** How a frame `width` wide cuts into tile columns: prores_ks's slices of 8 macroblocks, then halving powers of two. */
export function tileColumns(width: number): TileColumn[] {
  const columns: TileColumn[] = [];
  for (let x = 0, firstSlice = 0; x < width; x += PRORES_TILE_WIDTH) {
    const macroblocks = Math.ceil(Math.min(PRORES_TILE_WIDTH, width - x) / PRORES_SLICE_ROW);
    const slices = macroblocks === 8 ? 1 : popcount(macroblocks);
    columns.push({ x, width: Math.min(PRORES_TILE_WIDTH, width - x), firstSlice, slices });
    firstSlice += slices;
  }
  return columns;
}

const popcount = (n: number): number => (n === 0 ? 0 : (n & 1) + popcount(n >> 1));

/**
 * `base`'s frame (its header, its size) holding `slices` (as many as base has, coded with the same settings):
 * the frame the encoder writes for the picture those slices were cut from.
 */
export function assembleProresFrame(base: ProresFrame, slices: readonly Buffer[]): Buffer {
  return Buffer.concat(proresFrameParts(base, slices));
}

/** assembleProresFrame's bytes in the pieces they are made of, to be written as they are. */
export function proresFrameParts(base: ProresFrame, slices: readonly Buffer[]): Buffer[] {
  if (slices.length !== base.slices.length) throw new Error(`${slices.length} slices for a frame of ${base.slices.length}`);
  const pictureHeader = Buffer.alloc(PICTURE_HEADER_SIZE + 2 * slices.length);
  const dataSize = slices.reduce((sum, slice) => sum + slice.length, 0);
  pictureHeader[0] = PICTURE_HEADER_SIZE << 3;
  pictureHeader.writeUInt32BE(pictureHeader.length + dataSize, 1);
  pictureHeader.writeUInt16BE(slices.length, 5);
  pictureHeader[7] = base.sliceShape;
  slices.forEach((slice, i) => pictureHeader.writeUInt16BE(slice.length, PICTURE_HEADER_SIZE + 2 * i));
  const frameHead = Buffer.alloc(8);
  frameHead.writeUInt32BE(8 + base.header.length + pictureHeader.length + dataSize, 0);
  frameHead.write("icpf", 4, "latin1");
  return [frameHead, base.header, pictureHeader, ...slices];
}
