import { streamFfmpegOutput } from "../media/ffmpeg.ts";

export interface GrayFrame {
  width: number;
  height: number;
  /** One byte per pixel, rows top down. */
  pixels: Uint8Array;
}

/** The frame at `atSeconds` of an ffmpeg input (after `filter`, when given), as 8-bit gray. */
export async function grayFrame(options: { input: readonly string[]; filter?: string; atSeconds: number; width: number; height: number }): Promise<GrayFrame> {
  const { width, height } = options;
  const filters = [...(options.filter === undefined ? [] : [options.filter]), "format=gray"].join(",");
  const ffmpeg = streamFfmpegOutput({
    args: ["-hide_banner", "-loglevel", "error", ...options.input, "-vf", filters, "-ss", String(options.atSeconds), "-frames:v", "1", "-f", "rawvideo", "pipe:1"],
  });
  const chunks: Buffer[] = [];
  for await (const chunk of ffmpeg.stdout) chunks.push(chunk as Buffer);
  await ffmpeg.done;
  const pixels = new Uint8Array(Buffer.concat(chunks));
  if (pixels.length !== width * height) throw new Error(`expected a ${width}x${height} gray frame, got ${pixels.length} bytes`);
  return { width, height, pixels };
}

/** Pixels brighter than `threshold` inside a rectangle. */
export function brightPixels(frame: GrayFrame, rect: { x: number; y: number; width: number; height: number }, threshold = 128): number {
  let count = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    for (let x = rect.x; x < rect.x + rect.width; x++) if (frame.pixels[y * frame.width + x]! > threshold) count++;
  }
  return count;
}

/** Rows between the first and the last that hold a pixel brighter than `threshold` inside a rectangle; 0 when none. */
export function brightRows(frame: GrayFrame, rect: { x: number; y: number; width: number; height: number }, threshold = 128): number {
  let first = -1;
  let last = -1;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      if (frame.pixels[y * frame.width + x]! > threshold) {
        if (first < 0) first = y;
        last = y;
        break;
      }
    }
  }
  return first < 0 ? 0 : last - first + 1;
}
