// Whole frames in I420 (Y, then U, then V, tightly packed) that a band's planes are copied into, the input of the
// VP9 encoder (media/vp9-encoder.ts): the overlay's colour frame (the band's Y, U, V on black) and its alpha frame
// (the band's alpha as luma on 0, chroma 128).

/** A frame of one colour: `y` in the luma plane, `u` and `v` in the chroma planes. */
export function blankI420(width: number, height: number, fill: { y: number; u: number; v: number }): Uint8Array {
  const luma = width * height;
  const chroma = (width / 2) * (height / 2);
  return new Uint8Array(luma + 2 * chroma).fill(fill.y, 0, luma).fill(fill.u, luma, luma + chroma).fill(fill.v, luma + chroma);
}

/** Copies a width × height plane into the plane of `frameWidth` columns starting at `offset` of `frame`, at (x, y) of that plane. */
export function copyPlane(
  frame: Uint8Array, frameWidth: number, offset: number, place: { x: number; y: number; width: number; height: number }, plane: Uint8Array,
): void {
  for (let row = 0; row < place.height; row++) {
    frame.set(plane.subarray(row * place.width, (row + 1) * place.width), offset + (place.y + row) * frameWidth + place.x);
  }
}

/** Copies a band's Y, U and V planes (`band`, tightly packed, even place and size) into an I420 frame at (x, y). */
export function copyBandI420(
  frame: Uint8Array, frameSize: { width: number; height: number }, at: { x: number; y: number }, band: { width: number; height: number; data: Uint8Array },
): void {
  const { width, height } = band;
  const [luma, chroma] = [width * height, (width / 2) * (height / 2)];
  const frameLuma = frameSize.width * frameSize.height;
  const frameChroma = frameLuma / 4;
  const half = { x: at.x / 2, y: at.y / 2, width: width / 2, height: height / 2 };
  copyPlane(frame, frameSize.width, 0, { ...at, width, height }, band.data.subarray(0, luma));
  copyPlane(frame, frameSize.width / 2, frameLuma, half, band.data.subarray(luma, luma + chroma));
  copyPlane(frame, frameSize.width / 2, frameLuma + frameChroma, half, band.data.subarray(luma + chroma, luma + 2 * chroma));
}
