import type { Logger } from "pino";
import { streamFfmpegOutput } from "./ffmpeg.ts";

export const PCM_SAMPLE_RATE = 16_000;

export interface DecodePcmOptions {
  signal?: AbortSignal;
  /** Default "ffmpeg". */
  binary?: string;
  logger?: Logger;
}

/**
 * Regroups raw little-endian float32 bytes into Float32Arrays of whole samples; a pipe may split
 * a sample across chunks. Each array owns its memory, so callers may keep it.
 */
export async function* toFloat32Chunks(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<Float32Array> {
  let carry: Uint8Array = new Uint8Array(0);
  for await (const chunk of bytes) {
    const total = carry.length + chunk.length;
    const usable = total - (total % 4);
    if (usable === 0) {
      carry = concat(carry, chunk);
      continue;
    }
    const samples = new Float32Array(usable / 4);
    const view = new Uint8Array(samples.buffer);
    view.set(carry);
    view.set(chunk.subarray(0, usable - carry.length), carry.length);
    carry = chunk.slice(usable - carry.length);
    yield samples;
  }
  if (carry.length > 0) throw new Error(`PCM stream ended inside a sample (${carry.length} stray bytes)`);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/**
 * Streams the first audio track of a media file as 16 kHz mono float32 samples in [-1, 1],
 * chunk by chunk. Stopping early (break) or aborting kills ffmpeg; a decode failure throws FfmpegError.
 */
export async function* decodePcm16kMono(path: string, options: DecodePcmOptions = {}): AsyncGenerator<Float32Array> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const run = streamFfmpegOutput({
    args: ["-v", "error", "-i", path, "-map", "0:a:0", "-vn", "-f", "f32le", "-ac", "1", "-ar", String(PCM_SAMPLE_RATE), "pipe:1"],
    signal,
    binary: options.binary,
    logger: options.logger,
  });
  let finished = false;
  try {
    try {
      yield* toFloat32Chunks(run.stdout);
    } catch (streamError) {
      // ffmpeg's own outcome (abort reason, exit status) explains a broken stream better.
      await run.done;
      throw streamError;
    }
    await run.done;
    finished = true;
  } finally {
    if (!finished) {
      stop.abort(new Error("PCM decoding stopped"));
      await run.done.catch(() => undefined);
    }
  }
}
