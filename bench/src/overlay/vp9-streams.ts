import { captionsInFrame, captionTimeline } from "@caption/gpu-worker/render";
import { blankI420, updateBandI420, updatePlane } from "@caption/gpu-worker/media";
import type { PresetId } from "@caption/shared/api/preset";
import { wordsOfText } from "@caption/shared/preview/preview-timeline";
import { resolveStyle } from "@caption/shared/style/resolve-style";

// The overlay WebM's two VP9 streams as a render makes them, from the real painter: a colour frame wherever the
// caption band's picture changes (the band's Y, U, V on black), an alpha frame wherever its alpha changes (the alpha
// as luma on 0), each given as the whole 1080×1920 frame as today's encoders get it, and the band's planes with it.

export const FRAME = { width: 1080, height: 1920 };
const FRAME_RATE = 30;
const TEXT = "Every word of this sentence lights up as it is spoken, one after another, until the very last one";

export interface BandFrame {
  ptsMs: number;
  /** The band's place in the frame and size. */
  band: { x: number; y: number; width: number; height: number };
  /** The band's Y, U, V planes (tightly packed). */
  yuv: Uint8Array;
  /** The band's alpha plane, 8 bits. */
  alpha: Uint8Array;
  /** Whether the colour planes, and the alpha, differ from the frame before. */
  colourChanged: boolean;
  alphaChanged: boolean;
}

/** Each video frame of `seconds` of a caption in `preset` whose picture differs from the last one. */
export function* bandFrames(preset: PresetId, seconds: number): Generator<BandFrame> {
  // Spoken at a steady pace (0.45 s a word), as many words as fit.
  const words = wordsOfText(TEXT).filter((w) => w.end <= seconds);
  const style = resolveStyle({ preset, video: FRAME });
  const timeline = captionTimeline(words, style, { durationSeconds: seconds, frameRate: FRAME_RATE });
  const { band } = timeline;
  const luma = band.width * band.height;
  let previous: { yuv: Uint8Array; alpha: Uint8Array } | undefined;
  for (let n = 0; n < seconds * FRAME_RATE; n++) {
    const bytes = captionsInFrame(timeline, n).bytes;
    const yuv = Uint8Array.from(bytes.subarray(0, luma * 1.5));
    const alpha = Uint8Array.from(bytes.subarray(luma * 1.5, luma * 2.5));
    const colourChanged = previous === undefined || Buffer.compare(previous.yuv, yuv) !== 0;
    const alphaChanged = previous === undefined || Buffer.compare(previous.alpha, alpha) !== 0;
    if (!colourChanged && !alphaChanged) continue;
    const place = { x: band.x, y: band.y, width: band.width, height: band.height };
    yield { ptsMs: Math.floor((n * 1000) / FRAME_RATE), band: place, yuv, alpha, colourChanged, alphaChanged };
    previous = { yuv, alpha };
  }
}

/** The whole colour and alpha frames that `frame` is, written into `colour` and `alpha` (blankFrames' buffers). */
export function placeBand(frame: BandFrame, colour: Uint8Array, alpha: Uint8Array): void {
  const { band } = frame;
  // Whole frames for ffmpeg: the blocks that changed are not needed.
  const cols = (FRAME.width + 15) >> 4;
  const map = new Uint8Array(((FRAME.height + 15) >> 4) * cols);
  updateBandI420(colour, FRAME, band, { ...band, data: frame.yuv }, { x: 0, y: 0, width: band.width, height: band.height }, map);
  updatePlane({ frame: alpha, offset: 0, width: FRAME.width }, band, { data: frame.alpha, offset: 0, stride: band.width }, { map, cols, blockSize: 16 });
}

/** Black colour (Y 16, U = V 128: ffmpeg's pad colour) and transparent alpha (0, chroma 128) frames. */
export const blankFrames = (): { colour: Uint8Array; alpha: Uint8Array } => ({
  colour: blankI420(FRAME.width, FRAME.height, { y: 16, u: 128, v: 128 }),
  alpha: blankI420(FRAME.width, FRAME.height, { y: 0, u: 128, v: 128 }),
});
