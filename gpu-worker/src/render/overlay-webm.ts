import { blankI420, updateBandI420, updatePlane } from "../media/i420-canvas.ts";
import { IvfWriter } from "../media/ivf.ts";
import { SHOW_LAST_VP9_FRAME } from "../media/vp9-alpha-webm.ts";
import { openVp9Encoder, type LibvpxChoice, type Vp9Encoder } from "../media/vp9-encoder.ts";
import { KeyFrameRule } from "./alpha-track.ts";
import { enclosing, type Band, type PixelArea } from "./band-layout.ts";
import type { CaptionFrameSink } from "./caption-pipe.ts";
import type { PixelPatch, YuvaPicture } from "./yuva-picture.ts";

// The overlay WebM's colour and alpha streams encoded in this process (media/vp9-encoder.ts), as the caption
// pictures are sent: each stream's whole frame is kept, the band's changed area copied into it, and libvpx is
// told which 16×16 blocks changed (its active map): a caption changes a few percent of a 1080 × 1920 frame,
// and libvpx's real-time cost is otherwise the whole frame's. A stream that did not change at all is given a
// one-byte frame showing its last one again, and libvpx is not called. Where libvpx cannot be loaded here, the
// render has ffmpeg encode the two streams instead (render-video.ts): the same files, at more CPU.

export interface OverlayWebmOptions {
  media: { width: number; height: number; durationSeconds: number };
  band: Band;
  keyIntervalMs: number;
  /** The colour and alpha streams (IVF, millisecond times), muxed into the WebM once the render is done. */
  paths: { colour: string; alpha: string };
  /** Which libvpx to load (tests name a missing one to take ffmpeg's way). */
  libvpx?: LibvpxChoice;
}

const COLOUR_CANVAS = { y: 16, u: 128, v: 128 };
/**
 * VP9's quantiser level for the colour. Blocks outside the active map keep the quality they were first coded at,
 * where ffmpeg's whole-frame encoding (CRF 15) refines an unchanged block over the frames after: 10 here gives the
 * burned video's caption band within the same loss (render/overlay-output.test.ts: 0.36 luma counts on average
 * against 0.51 at 15), at no measurable CPU.
 */
const COLOUR_CQ_LEVEL = 10;
const ALPHA_CANVAS = { y: 0, u: 128, v: 128 };

export class OverlayWebm implements CaptionFrameSink {
  readonly #options: OverlayWebmOptions;
  readonly #colour: Vp9Encoder;
  readonly #alpha: Vp9Encoder;
  readonly #frames: { colour: Uint8Array; alpha: Uint8Array };
  readonly #maps: { colour: Uint8Array; alpha: Uint8Array };
  readonly #keys: KeyFrameRule;
  #writers: Promise<{ colour: IvfWriter; alpha: IvfWriter }> | undefined;
  #dirty: PixelArea | null = null;
  #closed = false;
  /** Frames libvpx coded, a stream each (the others showed their last frame again). */
  readonly coded = { colour: 0, alpha: 0 };

  /** The encoders, or why libvpx cannot be used in this process. */
  static open(options: OverlayWebmOptions): { webm: OverlayWebm; reason?: undefined } | { webm?: undefined; reason: string } {
    const size = { width: options.media.width, height: options.media.height };
    const colour = openVp9Encoder({ ...size, lossless: false, cqLevel: COLOUR_CQ_LEVEL }, options.libvpx);
    if (colour.reason !== undefined) return { reason: colour.reason };
    const alpha = openVp9Encoder({ ...size, lossless: true }, options.libvpx);
    if (alpha.reason !== undefined) {
      colour.encoder.close();
      return { reason: alpha.reason };
    }
    return { webm: new OverlayWebm(options, colour.encoder, alpha.encoder) };
  }

  private constructor(options: OverlayWebmOptions, colour: Vp9Encoder, alpha: Vp9Encoder) {
    this.#options = options;
    this.#colour = colour;
    this.#alpha = alpha;
    const { width, height } = options.media;
    this.#frames = { colour: blankI420(width, height, COLOUR_CANVAS), alpha: blankI420(width, height, ALPHA_CANVAS) };
    this.#maps = { colour: new Uint8Array(colour.rows * colour.cols), alpha: new Uint8Array(alpha.rows * alpha.cols) };
    this.#keys = new KeyFrameRule(options.keyIntervalMs);
  }

  painted(patch: PixelPatch): void {
    this.#dirty = enclosing(this.#dirty ?? patch.area, patch.area);
  }

  async sent(ptsMs: number, picture: YuvaPicture): Promise<void> {
    // As ffmpeg's -t cuts the video: nothing from its end on.
    if (ptsMs >= Math.ceil(this.#options.media.durationSeconds * 1000)) return;
    const writers = await (this.#writers ??= this.#openWriters());
    // The key frames of the alpha track ffmpeg is given otherwise (render/alpha-track.ts).
    const key = this.#keys.next(ptsMs);
    const changed = this.#update(picture);
    const code = { colour: key || changed.colour, alpha: key || changed.alpha };
    if (code.colour) this.coded.colour++;
    if (code.alpha) this.coded.alpha++;
    // The two encoders run on two of libuv's threads at once.
    const [colour, alpha] = await Promise.all([
      code.colour ? this.#colour.encode(this.#frames.colour, ptsMs, { key, active: this.#maps.colour }) : [{ pts: ptsMs, data: SHOW_LAST_VP9_FRAME }],
      code.alpha ? this.#alpha.encode(this.#frames.alpha, ptsMs, { key, active: this.#maps.alpha }) : [],
    ]);
    for (const packet of colour) await writers.colour.append({ pts: packet.pts, data: packet.data });
    for (const packet of alpha) await writers.alpha.append({ pts: packet.pts, data: packet.data });
  }

  /** Every picture sent: the streams' files are complete. */
  async finish(): Promise<void> {
    this.#writers ??= this.#openWriters();
    await this.close();
  }

  /** Frees the encoders and closes the files (after the last picture or instead of it; the caller removes the files). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#colour.close();
    this.#alpha.close();
    const writers = await this.#writers;
    if (writers) await Promise.all([writers.colour.close(), writers.alpha.close()]);
  }

  /** Copies the band's changed area into both frames and marks the blocks whose pixels changed. */
  #update(picture: YuvaPicture): { colour: boolean; alpha: boolean } {
    const area = this.#dirty;
    this.#dirty = null;
    this.#maps.colour.fill(0);
    this.#maps.alpha.fill(0);
    if (area === null) return { colour: false, alpha: false };
    const { band, media } = this.#options;
    const band420 = { width: band.width, height: band.height, data: picture.bytes };
    updateBandI420(this.#frames.colour, media, band, band420, area, this.#maps.colour);
    const alphaPlane = { data: picture.bytes, offset: picture.bytes.length - band.width * band.height + area.y * band.width + area.x, stride: band.width };
    const place = { x: band.x + area.x, y: band.y + area.y, width: area.width, height: area.height };
    const active = { map: this.#maps.alpha, cols: this.#alpha.cols, blockSize: 16 } as const;
    updatePlane({ frame: this.#frames.alpha, offset: 0, width: media.width }, place, alphaPlane, active);
    return { colour: this.#maps.colour.includes(1), alpha: this.#maps.alpha.includes(1) };
  }

  async #openWriters(): Promise<{ colour: IvfWriter; alpha: IvfWriter }> {
    const info = { fourcc: "VP90", width: this.#options.media.width, height: this.#options.media.height, timeBase: { num: 1, den: 1000 } };
    const [colour, alpha] = await Promise.all([IvfWriter.create(this.#options.paths.colour, info), IvfWriter.create(this.#options.paths.alpha, info)]);
    return { colour, alpha };
  }
}
