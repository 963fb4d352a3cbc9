import { rm } from "node:fs/promises";
import type { Logger } from "pino";
import type { MediaInfo } from "../media/media-info.ts";
import { writeAlphaWebm } from "../media/vp9-alpha-webm.ts";
import type { Band } from "./band-layout.ts";
import type { CaptionFrameSink } from "./caption-pipe.ts";
import { frameGridMs } from "./frame-schedule.ts";
import { OverlayMov } from "./overlay-mov.ts";
import { frameRateFraction, overlayParts, type OverlayOutputs, type OverlayParts } from "./overlay-output.ts";

export interface OverlayEncoderOptions {
  media: Pick<MediaInfo, "width" | "height" | "frameRate" | "durationSeconds">;
  band: Band;
  /** Frames of the video, what the MOV and the WebM hold. */
  frames: number;
  ffmpegBinary?: string;
  signal?: AbortSignal;
  logger?: Logger;
}

/**
 * The overlay's files as a render makes them: the WebM's colour and alpha streams, encoded by the render's ffmpeg
 * from the caption stream (`webmParts`), put together one frame per video frame once it is done; the MOV from the
 * tiles each picture changes (render/overlay-mov.ts), a sink of the caption pictures.
 */
export class OverlayEncoders {
  readonly #overlay: OverlayOutputs;
  readonly #options: OverlayEncoderOptions;
  readonly #parts: OverlayParts;
  readonly #mov: OverlayMov;

  constructor(overlay: OverlayOutputs, options: OverlayEncoderOptions) {
    const { media, band, ffmpegBinary, signal, logger } = options;
    this.#overlay = overlay;
    this.#options = options;
    this.#parts = overlayParts(overlay);
    const rate = { frames: options.frames, frameRate: frameRateFraction(media.frameRate) };
    this.#mov = new OverlayMov({ media, band, rate, path: overlay.movPath, ffmpegBinary, signal, logger });
  }

  /** The WebM's streams, for the render's ffmpeg to encode. */
  get webmParts(): OverlayParts {
    return this.#parts;
  }

  get sinks(): CaptionFrameSink[] {
    return [this.#mov];
  }

  /** Every picture sent and ffmpeg done: writes the WebM and the MOV. */
  async finish(): Promise<void> {
    const { media, frames, signal, logger } = this.#options;
    const video = { width: media.width, height: media.height, grid: { frames, frameMs: frameGridMs(media.frameRate) }, frameSeconds: 1 / media.frameRate };
    const webm = await writeAlphaWebm({ ...this.#parts, webm: this.#overlay.webmPath }, video, signal);
    const { tiles } = await this.#mov.finish();
    logger?.info({ colour_frames: webm.colourFrames, alpha_frames: webm.alphaFrames, repeated_frames: webm.repeatedFrames, mov_tiles: tiles }, "overlay muxed");
  }

  /** Frees the encoders and removes the intermediate files, after finish or instead of it. */
  async close(): Promise<void> {
    await this.#mov.close();
    await Promise.all([this.#parts.colour, this.#parts.alpha].map((path) => rm(path, { force: true })));
  }
}
