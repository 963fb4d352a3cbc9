// ProRes frames taken apart into their independently coded slices, and put back together with some rows of
// slices taken from another frame. A ProRes picture is a grid of slices (16 rows of pixels each, a few
// macroblocks wide), each coded on its own with the quantiser in its own header: a frame of the whole size
// whose rows come from a strip encoded alone are the very bytes an encoder given the whole frame writes for
// them, provided the strip spans the frame's width (the same slices in a row), starts on a slice row and is
// coded with the same settings (a fixed quantiser: no rate control looking at the whole picture).

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

/**
 * `base` (a frame of the whole size) with its slice rows from `firstRow` on replaced by all of `strip`'s (a
 * frame as wide, coded with the same settings): the frame the encoder writes for the whole picture.
 */
export function spliceProresRows(base: ProresFrame, strip: ProresFrame, firstRow: number): Buffer {
  if (strip.width !== base.width || strip.slicesPerRow !== base.slicesPerRow || strip.sliceShape !== base.sliceShape) {
    throw new Error(`a ${strip.width}-wide strip of ${strip.slicesPerRow} slices a row cannot go into a ${base.width}-wide frame of ${base.slicesPerRow}`);
  }
  const first = firstRow * base.slicesPerRow;
  if (!Number.isInteger(firstRow) || firstRow < 0 || first + strip.slices.length > base.slices.length) throw new Error(`strip rows from ${firstRow} outside the frame`);
  const slices = [...base.slices.slice(0, first), ...strip.slices, ...base.slices.slice(first + strip.slices.length)];
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
  return Buffer.concat([frameHead, base.header, pictureHeader, ...slices]);
}

/**
 * Rows of the frame a strip's pixels colour beyond themselves when 4:2:0 chroma is converted to ProRes's 4:4:4
 * (the scaler's filter reaches two chroma rows, four of the frame's, each way): a strip keeps this many of the
 * frame's rows about what it holds, so its rows convert as they do in the whole frame.
 */
export const CHROMA_REACH_ROWS = 8;

/** The rows of whole slices a strip must cover to hold `top`..`top + height` of a frame `frameHeight` high. */
export function sliceRowsFor(top: number, height: number, frameHeight: number): { firstRow: number; y: number; height: number } {
  const firstRow = Math.max(0, Math.floor((top - CHROMA_REACH_ROWS) / PRORES_SLICE_ROW));
  const y = firstRow * PRORES_SLICE_ROW;
  const end = Math.min(frameHeight, Math.ceil((top + height + CHROMA_REACH_ROWS) / PRORES_SLICE_ROW) * PRORES_SLICE_ROW);
  return { firstRow, y, height: end - y };
}
