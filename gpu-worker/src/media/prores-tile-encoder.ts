import { open } from "node:fs/promises";
import type { Logger } from "pino";
import { spawnFfmpeg } from "./ffmpeg.ts";
import { PRORES_SLICE_ROW } from "./prores-frames.ts";

/**
 * ProRes 4444 with a 16-bit alpha channel, what Premiere, Resolve and Final Cut take as a transparent layer. A
 * fixed quantiser (a high-quality 4): prores_ks's own rate control costs several times as much, and it would
 * make a slice's bytes depend on the rest of the picture, so tiles coded apart could not be put together.
 */
export const PRORES_4444_ARGS = ["-c:v", "prores_ks", "-profile:v", "4444", "-qscale:v", "4", "-pix_fmt", "yuva444p10le", "-vendor", "apl0"];

export interface TileEncoderOptions {
  ffmpegBinary?: string;
  signal?: AbortSignal;
  logger?: Logger;
}

/**
 * One ffmpeg coding tiles of one width (16 rows of yuva444p each) as they come, each a ProRes frame of its own,
 * written one after another to `path` as the encoder writes raw ProRes (each frame starts with its size).
 */
export class ProresTileEncoder {
  readonly width: number;
  readonly path: string;
  readonly #ffmpeg: ReturnType<typeof spawnFfmpeg>;
  #exited = false;

  constructor(path: string, width: number, options: TileEncoderOptions) {
    this.width = width;
    this.path = path;
    this.#ffmpeg = spawnFfmpeg({
      binary: options.ffmpegBinary,
      signal: options.signal,
      logger: options.logger,
      args: ["-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuva444p", "-s", `${width}x${PRORES_SLICE_ROW}`, "-framerate", "1",
        // One thread: a tile is one slice, and slice threads only cost each frame their handing over.
        "-i", "pipe:0", ...PRORES_4444_ARGS, "-threads", "1", "-f", "rawvideo", path],
    });
    this.#ffmpeg.stdin.on("error", () => undefined);
    void this.#ffmpeg.done.then(() => (this.#exited = true), () => (this.#exited = true));
  }

  /** Resolves once ffmpeg has the tiles' bytes (one or more tiles, one after another); rejects when ffmpeg has failed. */
  async encode(pictures: Buffer): Promise<void> {
    const tile = 4 * PRORES_SLICE_ROW * this.width;
    if (pictures.length === 0 || pictures.length % tile !== 0) throw new RangeError(`${pictures.length} bytes are no ${this.width}-wide tiles`);
    if (this.#exited) {
      await this.#ffmpeg.done;
      throw new Error("the ProRes tile encoder has exited");
    }
    await Promise.race([new Promise<void>((resolve) => this.#ffmpeg.stdin.write(pictures, () => resolve())), this.#ffmpeg.done]);
  }

  /** No more tiles: resolves when every frame is written. */
  async finish(): Promise<void> {
    if (!this.#exited) this.#ffmpeg.stdin.end();
    await this.#ffmpeg.done;
  }

  /** Stops the encoder whatever it was doing (its file stays for the caller to remove). */
  async close(): Promise<void> {
    this.#ffmpeg.stdin.destroy();
    await this.#ffmpeg.done.catch(() => undefined);
  }
}

/** The raw ProRes frames of a file the encoder wrote, in order. */
export async function* readProresFrames(path: string): AsyncGenerator<Buffer> {
  const file = await open(path, "r");
  try {
    const head = Buffer.alloc(4);
    for (let position = 0; ; ) {
      const { bytesRead } = await file.read(head, 0, 4, position);
      if (bytesRead === 0) return;
      const size = head.readUInt32BE(0);
      if (bytesRead < 4 || size < 8) throw new Error(`${path}: no ProRes frame at byte ${position}`);
      const frame = Buffer.alloc(size);
      const read = await file.read(frame, 0, size, position);
      if (read.bytesRead !== size) throw new Error(`${path}: the ProRes frame at byte ${position} is cut short`);
      yield frame;
      position += size;
    }
  } finally {
    await file.close();
  }
}
