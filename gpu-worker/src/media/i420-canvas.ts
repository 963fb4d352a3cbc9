// Whole frames in I420 (Y, then U, then V, tightly packed) that a band's planes are copied into, the input of the
// VP9 encoder (media/vp9-encoder.ts): the overlay's colour frame (the band's Y, U, V on black) and its alpha frame
// (the band's alpha as luma on 0, chroma 128).

/** A frame of one colour: `y` in the luma plane, `u` and `v` in the chroma planes. */
export function blankI420(width: number, height: number, fill: { y: number; u: number; v: number }): Uint8Array {
  const luma = width * height;
  const chroma = (width / 2) * (height / 2);
  return new Uint8Array(luma + 2 * chroma).fill(fill.y, 0, luma).fill(fill.u, luma, luma + chroma).fill(fill.v, luma + chroma);
}

/** Where a plane's rows are read from: `data` from `offset`, `stride` bytes a row. */
export interface PlaneSource {
  data: Uint8Array;
  offset: number;
  stride: number;
}

/**
 * Writes a rectangle of one plane into the frame, marking in `map` (the VP9 encoder's active map of the frame:
 * ((lumaHeight + 15) >> 4) rows of `cols` blocks) every block where a byte changed: what the frame held is the
 * last frame given to the encoder, so the map never misses a change and marks nothing unchanged. `place` and
 * `blockSize` are in the plane's own pixels: 16 for luma (or an alpha plane coded as luma), 8 for 4:2:0 chroma.
 */
export function updatePlane(
  target: { frame: Uint8Array; offset: number; width: number },
  place: { x: number; y: number; width: number; height: number },
  source: PlaneSource,
  active: { map: Uint8Array; cols: number; blockSize: 8 | 16 },
): void {
  const { frame, offset, width: stride } = target;
  const { map, cols, blockSize } = active;
  for (let y = 0; y < place.height; y++) {
    const at = offset + (place.y + y) * stride + place.x;
    const from = source.offset + y * source.stride;
    const row = source.data.subarray(from, from + place.width);
    if (Buffer.compare(frame.subarray(at, at + place.width), row) === 0) continue;
    const blocks = (((place.y + y) / blockSize) | 0) * cols;
    for (let x = 0; x < place.width; ) {
      const column = ((place.x + x) / blockSize) | 0;
      const end = Math.min(place.width, (column + 1) * blockSize - place.x);
      if (map[blocks + column] === 0) {
        for (let i = x; i < end; i++) {
          if (frame[at + i] !== row[i]) {
            map[blocks + column] = 1;
            break;
          }
        }
      }
      x = end;
    }
    frame.set(row, at);
  }
}

/**
 * Writes a rectangle of a band's Y, U and V planes (`band`: width × height, tightly packed) into an I420 frame,
 * marking the blocks that changed (updatePlane). `rect` is the part of the band written, in the band's pixels,
 * and `at` the band's place in the frame: all even (4:2:0).
 */
export function updateBandI420(
  frame: Uint8Array, frameSize: { width: number; height: number }, at: { x: number; y: number },
  band: { width: number; height: number; data: Uint8Array }, rect: { x: number; y: number; width: number; height: number }, map: Uint8Array,
): void {
  if ([at.x, at.y, rect.x, rect.y, rect.width, rect.height, band.width, band.height].some((v) => v % 2 !== 0)) throw new RangeError("a 4:2:0 band's places and sizes must be even");
  if (rect.x < 0 || rect.y < 0 || rect.x + rect.width > band.width || rect.y + rect.height > band.height) throw new RangeError("the rectangle lies outside the band");
  if (at.x < 0 || at.y < 0 || at.x + band.width > frameSize.width || at.y + band.height > frameSize.height) throw new RangeError("the band lies outside the frame");
  const cols = (frameSize.width + 15) >> 4;
  const [luma, chroma] = [band.width * band.height, (band.width / 2) * (band.height / 2)];
  const frameLuma = frameSize.width * frameSize.height;
  const half = { x: (at.x + rect.x) / 2, y: (at.y + rect.y) / 2, width: rect.width / 2, height: rect.height / 2 };
  const fullPlace = { x: at.x + rect.x, y: at.y + rect.y, width: rect.width, height: rect.height };
  const lumaSource = { data: band.data, offset: rect.y * band.width + rect.x, stride: band.width };
  updatePlane({ frame, offset: 0, width: frameSize.width }, fullPlace, lumaSource, { map, cols, blockSize: 16 });
  for (const plane of [0, 1]) {
    const source = { data: band.data, offset: luma + plane * chroma + (rect.y / 2) * (band.width / 2) + rect.x / 2, stride: band.width / 2 };
    updatePlane({ frame, offset: frameLuma + (plane * frameLuma) / 4, width: frameSize.width / 2 }, half, source, { map, cols, blockSize: 8 });
  }
}
