import type { Logger } from "pino";
import { streamFfmpegOutput } from "./ffmpeg.ts";
import { sniffContainer } from "./source-container.ts";
import { sourceFailure } from "./source-failure.ts";
import { sourceInputArgs, type SourceFile } from "./source-input.ts";

export const PCM_SAMPLE_RATE = 16_000;

export interface DecodePcmOptions {
  signal?: AbortSignal;
  /** Default "ffmpeg". */
  binary?: string;
  logger?: Logger;
  /** The file's container, when inspection already read it; else it is read from the magic bytes. */
  container?: SourceFile["container"];
  /** Decode no more than this many seconds (the inspected duration: what is billed). */
  limitSeconds?: number;
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
 * Streams the first audio track of an untrusted media file as 16 kHz mono float32 samples in [-1, 1],
 * chunk by chunk, read with the source's hardened input arguments. Stopping early (break) or aborting
 * kills ffmpeg; a file ffmpeg cannot decode throws JobFailure UNSUPPORTED_FORMAT.
 */
export async function* decodePcm16kMono(path: string, options: DecodePcmOptions = {}): AsyncGenerator<Float32Array> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const source: SourceFile = { path, container: options.container ?? (await sniffContainer(path)) };
  const run = streamFfmpegOutput({
    args: ["-v", "error", ...sourceInputArgs(source, { limitSeconds: options.limitSeconds }), "-map", "0:a:0", "-vn", "-f", "f32le", "-ac", "1", "-ar", String(PCM_SAMPLE_RATE), "pipe:1"],
    signal,
    binary: options.binary,
    logger: options.logger,
  });
  const exited = run.done.catch((error: unknown) => {
    throw sourceFailure(error, "UNSUPPORTED_FORMAT", "The audio track could not be decoded");
  });
  exited.catch(() => undefined);
  let finished = false;
  try {
    try {
      yield* toFloat32Chunks(run.stdout);
    } catch (streamError) {
      // ffmpeg's own outcome (abort reason, exit status) explains a broken stream better.
      await exited;
      throw streamError;
    }
    await exited;
    finished = true;
  } finally {
    if (!finished) {
      stop.abort(new Error("PCM decoding stopped"));
      await run.done.catch(() => undefined);
    }
  }
}
