import { rm } from "node:fs/promises";
import type { Logger } from "pino";
import type { MediaInfo } from "../media/media-info.ts";
import { writeAlphaWebm } from "../media/vp9-alpha-webm.ts";
import type { LibvpxChoice } from "../media/vp9-encoder.ts";
import type { Band } from "./band-layout.ts";
import type { CaptionFrameSink } from "./caption-pipe.ts";
import { OverlayMov } from "./overlay-mov.ts";
import { frameRateFraction, OVERLAY_WEBM_KEY_INTERVAL_MS, overlayParts, type OverlayOutputs, type OverlayParts } from "./overlay-output.ts";
import { OverlayWebm } from "./overlay-webm.ts";

export interface OverlayEncoderOptions {
  media: Pick<MediaInfo, "width" | "height" | "frameRate" | "durationSeconds">;
  band: Band;
  /** Frames of the video, what the MOV holds. */
  frames: number;
  ffmpegBinary?: string;
  signal?: AbortSignal;
  logger?: Logger;
  libvpx?: LibvpxChoice;
}

/**
 * The overlay's files as a render makes them: the WebM's colour and alpha streams encoded in this process
 * (render/overlay-webm.ts) or, where libvpx cannot be loaded, by the render's ffmpeg (`webmByFfmpeg`, from the
 * caption stream); the MOV from the tiles each picture changes (render/overlay-mov.ts).
 */
export class OverlayEncoders {
  readonly #overlay: OverlayOutputs;
  readonly #options: OverlayEncoderOptions;
  readonly #parts: OverlayParts;
  readonly #webm: OverlayWebm | undefined;
  readonly #mov: OverlayMov;

  constructor(overlay: OverlayOutputs, options: OverlayEncoderOptions) {
    const { media, band, ffmpegBinary, signal, logger } = options;
    this.#overlay = overlay;
    this.#options = options;
    this.#parts = overlayParts(overlay);
    const opened = OverlayWebm.open({ media, band, keyIntervalMs: OVERLAY_WEBM_KEY_INTERVAL_MS, paths: this.#parts, libvpx: options.libvpx });
    if (opened.reason !== undefined) logger?.warn({ reason: opened.reason }, "libvpx cannot be used here: ffmpeg encodes the overlay WebM");
    this.#webm = opened.webm;
    const rate = { frames: options.frames, frameRate: frameRateFraction(media.frameRate) };
    this.#mov = new OverlayMov({ media, band, rate, path: overlay.movPath, ffmpegBinary, signal, logger });
  }

  /** The WebM's streams for the render's ffmpeg to encode, when this process cannot. */
  get webmByFfmpeg(): OverlayParts | undefined {
    return this.#webm === undefined ? this.#parts : undefined;
  }

  get sinks(): CaptionFrameSink[] {
    return [this.#webm, this.#mov].filter((sink) => sink !== undefined);
  }

  /** Every picture sent and ffmpeg done: writes the WebM and the MOV. */
  async finish(): Promise<void> {
    await this.#webm?.finish();
    const { ffmpegBinary, signal, logger } = this.#options;
    const webm = await writeAlphaWebm({ ...this.#parts, webm: this.#overlay.webmPath }, { ffmpegBinary, signal });
    const { tiles } = await this.#mov.finish();
    const coded = this.#webm && { colour_coded: this.#webm.coded.colour, alpha_coded: this.#webm.coded.alpha };
    logger?.info({ colour_frames: webm.colourFrames, alpha_frames: webm.alphaFrames, ...coded, mov_tiles: tiles }, "overlay muxed");
  }

  /** Frees the encoders and removes the intermediate files, after finish or instead of it. */
  async close(): Promise<void> {
    await Promise.all([this.#webm?.close(), this.#mov.close()]);
    await Promise.all([this.#parts.colour, this.#parts.alpha].map((path) => rm(path, { force: true })));
  }
}
