// Which 16×16 blocks of a 4:2:0 frame changed, for the VP9 encoder's active map (media/vp9-encoder.ts): a block
// left out keeps the last frame's pixels, so a map must never miss a changed pixel. It may mark more than changed.
// A chroma sample at (x, y) covers luma (2x, 2y) to (2x+1, 2y+1): chroma blocks of 8×8 are the luma blocks of 16×16.

/** A rectangle of the frame, in luma pixels. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An empty map for a frame of width × height: (height+15)>>4 rows of (width+15)>>4 blocks. */
export function emptyActiveMap(width: number, height: number): { map: Uint8Array; rows: number; cols: number } {
  const rows = (height + 15) >> 4;
  const cols = (width + 15) >> 4;
  return { map: new Uint8Array(rows * cols), rows, cols };
}

/** Marks every block that `rect` touches (clipped to the frame). */
export function markRect(map: Uint8Array, frameWidth: number, frameHeight: number, rect: Rect): void {
  const cols = (frameWidth + 15) >> 4;
  const x0 = Math.max(0, rect.x);
  const y0 = Math.max(0, rect.y);
  const x1 = Math.min(frameWidth, rect.x + rect.width);
  const y1 = Math.min(frameHeight, rect.y + rect.height);
  if (x1 <= x0 || y1 <= y0) return;
  for (let row = y0 >> 4; row <= (y1 - 1) >> 4; row++) map.fill(1, row * cols + (x0 >> 4), row * cols + ((x1 - 1) >> 4) + 1);
}

/** A band's planes: I420 of width × height (both even), Y then U then V, tightly packed. */
export interface BandPlanes {
  width: number;
  height: number;
  data: Uint8Array;
}

/**
 * Marks the blocks of the frame where the band placed at (x, y) (both even: 4:2:0) differs between `before` and
 * `after`, plane by plane. A row equal in both (the common case: most of a caption does not change between two
 * frames) costs one native comparison; the others are compared block by block.
 */
export function markBandChanges(
  map: Uint8Array, frame: { width: number; height: number }, at: { x: number; y: number }, before: BandPlanes, after: BandPlanes,
): void {
  const { width, height } = after;
  if (before.width !== width || before.height !== height) throw new RangeError("the band's size changed: mark its whole rectangle instead");
  if (at.x % 2 !== 0 || at.y % 2 !== 0 || width % 2 !== 0 || height % 2 !== 0) throw new RangeError("a 4:2:0 band's place and size must be even");
  if (at.x < 0 || at.y < 0 || at.x + width > frame.width || at.y + height > frame.height) throw new RangeError("the band lies outside the frame");
  const lumaBytes = width * height;
  const chromaBytes = (width / 2) * (height / 2);
  const bytes = lumaBytes + 2 * chromaBytes;
  if (before.data.length !== bytes || after.data.length !== bytes) throw new RangeError("band planes of the wrong size");
  const plane = (offset: number, planeWidth: number, planeHeight: number, px: number, py: number, blockSize: 8 | 16) => {
    const place = { x: px, y: py, width: planeWidth, height: planeHeight, blockSize };
    markPlaneChanges(map, frame.width, place, before.data.subarray(offset), after.data.subarray(offset));
  };
  plane(0, width, height, at.x, at.y, 16);
  plane(lumaBytes, width / 2, height / 2, at.x / 2, at.y / 2, 8);
  plane(lumaBytes + chromaBytes, width / 2, height / 2, at.x / 2, at.y / 2, 8);
}

/**
 * Marks the blocks where one plane of a band differs: `place` is the band's place and size in that plane's own
 * pixels, `blockSize` 16 for luma (or an alpha plane coded as luma), 8 for 4:2:0 chroma. The rows are read from the
 * start of `before` and `after`, place.width bytes each.
 */
export function markPlaneChanges(
  map: Uint8Array, frameWidth: number, place: Rect & { blockSize: 8 | 16 }, before: Uint8Array, after: Uint8Array,
): void {
  const { x: px, y: py, width, height, blockSize } = place;
  const cols = (frameWidth + 15) >> 4;
  for (let y = 0; y < height; y++) {
    const start = y * width;
    if (Buffer.compare(before.subarray(start, start + width), after.subarray(start, start + width)) === 0) continue;
    const row = (((py + y) / blockSize) | 0) * cols;
    // Block by block, a byte at a time (a native comparison a block costs more in its calls), blocks already marked skipped.
    for (let x = 0; x < width; ) {
      const column = ((px + x) / blockSize) | 0;
      const end = Math.min(width, (column + 1) * blockSize - px);
      if (map[row + column] === 0) {
        for (let i = start + x; i < start + end; i++) {
          if (before[i] !== after[i]) {
            map[row + column] = 1;
            break;
          }
        }
      }
      x = end;
    }
  }
}
