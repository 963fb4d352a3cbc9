import { rm } from "node:fs/promises";
import type { Logger } from "pino";
import { runFfmpeg } from "../media/ffmpeg.ts";
import type { MediaInfo } from "../media/media-info.ts";
import { PRORES_4444_ARGS, ProresTileEncoder } from "../media/prores-tile-encoder.ts";
import { writeTiledMov, type MovFrameChange } from "../media/prores-tiled-mov.ts";
import type { Band } from "./band-layout.ts";
import type { CaptionFrameSink } from "./caption-pipe.ts";
import type { PixelPatch } from "./yuva-picture.ts";
import { Yuva444Strip } from "./yuva444-strip.ts";

export interface OverlayMovOptions {
  media: Pick<MediaInfo, "width" | "height">;
  band: Band;
  /** The movie's frames, at its rate. */
  rate: { frames: number; frameRate: { num: number; den: number } };
  path: string;
  ffmpegBinary?: string;
  signal?: AbortSignal;
  logger?: Logger;
}

/**
 * The overlay's ProRes 4444 MOV, made as the caption pictures are sent: the tiles each picture changes are
 * coded by an encoder per tile width (the frame's last column may be narrower) and put together into whole
 * frames once the render is done (media/prores-tiled-mov.ts). Nothing is coded twice, nothing unchanged at all.
 */
export class OverlayMov implements CaptionFrameSink {
  readonly #options: OverlayMovOptions;
  readonly #strip: Yuva444Strip;
  readonly #encoders = new Map<number, ProresTileEncoder>();
  readonly #changes: MovFrameChange[] = [];
  #tiles = 0;

  constructor(options: OverlayMovOptions) {
    this.#options = options;
    this.#strip = new Yuva444Strip(options.media, options.band);
  }

  painted(patch: PixelPatch): void {
    this.#strip.update(patch);
  }

  async sent(ptsMs: number): Promise<void> {
    const { num, den } = this.#options.rate.frameRate;
    // ptsMs is a frame of the grid floored to the millisecond: the nearest frame is the one it stands for.
    const frame = Math.round((ptsMs * num) / den / 1000);
    const tiles = this.#strip.takeChanged();
    if (frame >= this.#options.rate.frames) return;
    this.#changes.push({ frame, tiles: tiles.map(({ row, column }) => ({ row, column })) });
    // A write a tile width: the tiles of each width go to their encoder in the order of the changes.
    const widths = new Map<number, Buffer[]>();
    for (const tile of tiles) {
      const width = this.#strip.columns[tile.column]!.width;
      if (!widths.has(width)) widths.set(width, []);
      widths.get(width)!.push(tile.picture);
    }
    await Promise.all([...widths].map(([width, pictures]) => this.#encoder(width).encode(Buffer.concat(pictures))));
    this.#tiles += tiles.length;
  }

  /** Every picture sent: writes the movie. */
  async finish(): Promise<{ tiles: number }> {
    const template = `${this.#options.path}.empty.mov`;
    try {
      await Promise.all([...this.#encoders.values()].map((encoder) => encoder.finish()));
      await this.#emptyMovie(template);
      const tileFiles = new Map([...this.#encoders].map(([width, encoder]) => [width, encoder.path]));
      const source = { templatePath: template, columns: this.#strip.columns, tileFiles, changes: this.#changes };
      await writeTiledMov(source, this.#options.path, this.#options.rate, this.#options.signal);
      return { tiles: this.#tiles };
    } finally {
      await rm(template, { force: true });
    }
  }

  /** Stops the encoders and removes their files (after finish or instead of it). */
  async close(): Promise<void> {
    await Promise.all([...this.#encoders.values()].map(async (encoder) => {
      await encoder.close();
      await rm(encoder.path, { force: true });
    }));
  }

  #encoder(width: number): ProresTileEncoder {
    let encoder = this.#encoders.get(width);
    if (encoder === undefined) {
      const { ffmpegBinary, signal, logger } = this.#options;
      encoder = new ProresTileEncoder(`${this.#options.path}.tiles-${width}`, width, { ffmpegBinary, signal, logger });
      this.#encoders.set(width, encoder);
    }
    return encoder;
  }

  /** One frame of the whole size holding nothing, at the movie's rate (its time scale is the movie's). */
  async #emptyMovie(path: string): Promise<void> {
    const { media, rate, ffmpegBinary, signal } = this.#options;
    const canvas = `color=c=black@0:s=${media.width}x${media.height}:r=${rate.frameRate.num}/${rate.frameRate.den},format=yuva444p`;
    await runFfmpeg({
      binary: ffmpegBinary,
      signal,
      args: ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", canvas, "-frames:v", "1", ...PRORES_4444_ARGS, "-f", "mov", path],
    });
  }
}
