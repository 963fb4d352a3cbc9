import type { RgbaImage } from "../../render/rgba-image.ts";

/** How far two renderings of one frame may drift apart (a different CPU's anti-aliasing) and still match. */
export interface ImageTolerance {
  /** A pixel differs when any channel differs by more than this many counts of 255. */
  channel: number;
  /** The images match when at most this fraction of their pixels differ. */
  pixelFraction: number;
}

export interface ImageComparison {
  sameSize: boolean;
  /** Pixels where some channel differs by more than the tolerance. */
  differing: number;
  pixels: number;
  /** Largest channel difference anywhere. */
  maxChannelDelta: number;
  matches: boolean;
}

/** Golden images are compared shrunk by this factor. */
export const GOLDEN_SHRINK = 3;

// The same Skia build rasterizes identically; this absorbs anti-aliasing drift between CPUs (SIMD paths)
// while a changed colour, weight, position or animation state of one short word (several hundred pixels at
// a third of the size) fails: at most 0.1 % of pixels (230 of a frame) may differ by more than 8 counts in any channel.
export const GOLDEN_TOLERANCE: ImageTolerance = { channel: 8, pixelFraction: 0.001 };

export function compareImages(actual: RgbaImage, expected: RgbaImage, tolerance: ImageTolerance): ImageComparison {
  const pixels = expected.width * expected.height;
  if (actual.width !== expected.width || actual.height !== expected.height) {
    return { sameSize: false, differing: pixels, pixels, maxChannelDelta: 255, matches: false };
  }
  let differing = 0;
  let maxChannelDelta = 0;
  for (let i = 0; i < actual.data.length; i += 4) {
    const delta = pixelDelta(actual.data, expected.data, i);
    maxChannelDelta = Math.max(maxChannelDelta, delta);
    if (delta > tolerance.channel) differing++;
  }
  return { sameSize: true, differing, pixels, maxChannelDelta, matches: differing <= tolerance.pixelFraction * pixels };
}

/**
 * The expected image faded to grey, with pixels beyond the tolerance in red and smaller differences in
 * yellow: where to look. Sizes must match.
 */
export function diffImage(actual: RgbaImage, expected: RgbaImage, tolerance: ImageTolerance): RgbaImage {
  const data = new Uint8ClampedArray(expected.data.length);
  for (let i = 0; i < data.length; i += 4) {
    const delta = pixelDelta(actual.data, expected.data, i);
    const grey = 0.3 * expected.data[i]! + 0.59 * expected.data[i + 1]! + 0.11 * expected.data[i + 2]!;
    const faded = 160 + grey / 4;
    const colour = delta > tolerance.channel ? [255, 0, 0] : delta > 0 ? [255, 200, 0] : [faded, faded, faded];
    data.set([...colour, 255], i);
  }
  return { width: expected.width, height: expected.height, data };
}

function pixelDelta(a: Uint8ClampedArray, b: Uint8ClampedArray, i: number): number {
  return Math.max(Math.abs(a[i]! - b[i]!), Math.abs(a[i + 1]! - b[i + 1]!), Math.abs(a[i + 2]! - b[i + 2]!), Math.abs(a[i + 3]! - b[i + 3]!));
}
