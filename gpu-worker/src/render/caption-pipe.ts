import { rm } from "node:fs/promises";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { Writable } from "node:stream";
import type { Logger } from "pino";
import { JobFailure } from "@caption/shared/errors/codes";
import { FfmpegError, spawnFfmpeg } from "../media/ffmpeg.ts";
import type { Band } from "./band-layout.ts";
import type { CaptionPainter } from "./caption-painter.ts";
import type { CueLayout } from "./caption-layout.ts";
import { AlphaTrack } from "./alpha-track.ts";
import { MatroskaFrameWriter, matroskaHeader } from "./matroska-writer.ts";
import type { FrameMark } from "./picture-track.ts";
import { YuvaPicture, type PixelPatch } from "./yuva-picture.ts";

/** A caption picture: `layout` as it looks at `t` (nothing when null), shown from `ptsMs` of the stream. */
export interface PipedFrame {
  ptsMs: number;
  layout: CueLayout | null;
  t: number;
  /** False: painted (so the picture's patches build up as in a whole render) but not sent; a window starting later. */
  send?: false;
}

/** What else takes the caption pictures as they are painted and sent (the overlay's own encoders). */
export interface CaptionFrameSink {
  painted(patch: PixelPatch): void;
  /** The band's picture as it stands shows from `ptsMs`; resolves once taken, so the picture may change again. */
  sent(ptsMs: number, picture: YuvaPicture): Promise<void>;
}

export interface CaptionPipeOptions {
  /** ffmpeg's arguments, the caption stream being its Matroska input `pipe:0`; none: no ffmpeg, the sinks alone. */
  args?: string[];
  band: Band;
  painter: CaptionPainter;
  /** The frames in order, in batches as they become known; marks (with `markTrack`) go out before what follows them. */
  batches: AsyncIterable<readonly (PipedFrame | FrameMark)[]>;
  /** Files ffmpeg writes: removed when the run fails. */
  outputPaths: readonly string[];
  signal?: AbortSignal;
  /** Seconds of output ffmpeg has written, as it reports them; null when it does not say. */
  onProgress?: (seconds: number | null, done: boolean) => void;
  logger?: Logger;
  ffmpegBinary?: string;
  /**
   * Also a second track of the band's alpha planes (8-bit), a frame only where the alpha changes or a key frame
   * is due (AlphaTrack): ffmpeg's `[0:v:1]` (of the caption input), for the overlay WebM's alpha encoder.
   */
  alphaTrack?: { keyIntervalMs: number };
  /** Also the mark track (render/picture-track.ts), after the alpha track when there is one. */
  markTrack?: boolean;
  sinks?: readonly CaptionFrameSink[];
}

/**
 * Paints caption frames and pipes them into one ffmpeg process as a Matroska stream of band-sized yuva420p
 * pictures. A frame is painted only where the picture changes (CaptionPainter.update) and sent only when it
 * is due, so ffmpeg holds each picture until the next. What ffmpeg does with them (burn them into a video,
 * lay them on a transparent canvas, on a preview's background) is in `args`.
 */
export async function pipeCaptionFrames(options: CaptionPipeOptions): Promise<{ framesDrawn: number; paintMs: number }> {
  const { band, painter, signal, sinks = [] } = options;
  signal?.throwIfAborted();
  // Also stops ffmpeg when drawing fails here, not only when the caller aborts.
  const stop = new AbortController();
  const ffmpeg = options.args && spawnFfmpeg({
    binary: options.ffmpegBinary,
    signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal,
    logger: options.logger,
    args: options.args,
    onProgress: options.onProgress && ((p) => options.onProgress!(p.outTimeSeconds, p.done)),
  });
  // ffmpeg may exit (failure, abort) while frames are still being written; its exit status tells why.
  ffmpeg?.stdin.on("error", () => undefined);
  let exited = false;
  const exit = ffmpeg ? ffmpeg.done.then(() => (exited = true), () => (exited = true)) : new Promise<never>(() => undefined);
  const send = (chunks: readonly Buffer[]) => (ffmpeg ? write(ffmpeg.stdin, chunks, exit) : Promise.resolve());

  let framesDrawn = 0;
  // Drawing and converting caption pictures, for the benchmark's frames-per-second figure.
  let paintMs = 0;
  try {
    const writer = new MatroskaFrameWriter(band);
    const picture = new YuvaPicture(band.width, band.height);
    const alphaTrack = options.alphaTrack && new AlphaTrack(options.alphaTrack.keyIntervalMs);
    const alphaPlane = picture.bytes.subarray(picture.bytes.length - band.width * band.height);
    const markTrack = options.markTrack === true && ffmpeg !== undefined;
    await send([matroskaHeader(band, { alphaTrack: alphaTrack !== undefined, markTrack })]);
    // A failed ffmpeg ends the wait for frames still to come (cues still being recognised).
    for await (const batch of untilSettled(options.batches, exit)) {
      for (const frame of batch) {
        if (exited || signal?.aborted) break;
        if ("markMs" in frame) {
          if (markTrack) await send(writer.mark(frame.markMs, frame.take));
          continue;
        }
        const paintStarted = performance.now();
        const patch = painter.update(frame.layout, frame.t);
        if (patch !== null) {
          picture.update(patch);
          for (const sink of sinks) sink.painted(patch);
          framesDrawn++;
        }
        paintMs += performance.now() - paintStarted;
        // Resolves once ffmpeg has the bytes, so the picture may change again.
        if (frame.send !== false) {
          const chunks = ffmpeg ? writer.frame(frame.ptsMs, picture.bytes) : [];
          if (ffmpeg && alphaTrack?.take(frame.ptsMs, alphaPlane)) chunks.push(...writer.alpha(alphaPlane));
          await Promise.all([send(chunks), ...sinks.map((sink) => sink.sent(frame.ptsMs, picture))]);
          if (!ffmpeg) options.onProgress?.(frame.ptsMs / 1000, false);
        }
        // Skia's pixel buffers are freed by finalizers that only run when the loop yields.
        await yieldToEventLoop();
      }
    }
    if (ffmpeg && !exited) ffmpeg.stdin.end();
    await ffmpeg?.done;
    if (!ffmpeg) options.onProgress?.(null, true);
  } catch (error) {
    stop.abort(error);
    await ffmpeg?.done.catch(() => undefined);
    await Promise.all(options.outputPaths.map((path) => rm(path, { force: true })));
    if (signal?.aborted) throw signal.reason;
    if (error instanceof FfmpegError && !error.notStarted) {
      throw new JobFailure("RENDER_FAILED", "Rendering the captioned video failed", { cause: error });
    }
    throw error;
  }
  return { framesDrawn, paintMs };
}

/** The iterable's items until it ends or `settled` settles first (then the iteration is cut short). */
async function* untilSettled<T>(iterable: AsyncIterable<T>, settled: Promise<unknown>): AsyncGenerator<T> {
  const iterator = iterable[Symbol.asyncIterator]();
  const ended = settled.then(() => ({ done: true as const, value: undefined }));
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), ended]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    void iterator.return?.();
  }
}

/** Writes the chunks; resolves when the last has been handed to the pipe (or ffmpeg has exited). */
async function write(stdin: Writable, chunks: readonly Buffer[], exit: Promise<unknown>): Promise<void> {
  const last = chunks.at(-1);
  if (last === undefined) return;
  for (const chunk of chunks.slice(0, -1)) stdin.write(chunk);
  await Promise.race([new Promise<void>((resolve) => stdin.write(last, () => resolve())), exit]);
}
