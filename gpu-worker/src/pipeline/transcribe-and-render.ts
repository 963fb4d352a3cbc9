import { PassThrough } from "node:stream";
import type { Word } from "@caption/shared/api/transcript";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { transcribeAudio, type TranscribedAudio } from "../asr/transcribe-audio.ts";
import { decodePcm16kMono } from "../media/audio-pcm.ts";
import type { MediaInfo } from "../media/media-info.ts";
import type { Cue } from "../render/cue-builder.ts";
import { styledCueStream } from "../render/styled-cues.ts";
import { recordTranscription } from "../telemetry/attempt-tracing.ts";
import type { PassedWord } from "../words/passed-word.ts";
import type { WordPass } from "../words/word-pass.ts";
import type { AttemptContext } from "./attempt-context.ts";
import { renderCaptions } from "./output-stages.ts";
import type { CaptionedVideo } from "./rendered-files.ts";

// Progress while both run: recognition and the render advance together, the render (which cannot pass the
// cues recognised so far) carrying most of the weight, as it takes most of the time.
const RECOGNITION_SHARE = 0.25;

export interface TranscribedAndRendered {
  transcribed: TranscribedAudio;
  /** The recognised words after the job's word pass (vocabulary, replacements, profanity): what the picture shows. */
  words: PassedWord[];
  /** The cues the picture shows (the subtitle files are laid out by the job's profile instead). */
  cues: Cue[];
  video: CaptionedVideo;
}

/**
 * Recognition and the render at once: each cue goes to the render (ffmpeg's overlay waits for it) as soon
 * as nothing still to be recognised can change it. The job reads `transcribing` until recognition ends,
 * then `rendering`. Either failing stops the other; the attempt ends with the first failure, once both
 * have stopped.
 */
export async function transcribeAndRender(
  ctx: AttemptContext,
  input: {
    sourcePath: string;
    media: MediaInfo;
    style: ResolvedStyle;
    seconds: number;
    language: string;
    /** Terms the engine is biased toward (engines that can be). */
    vocabulary: readonly string[];
    /** Applied to each segment's words before the picture (and the files) get them. */
    pass: WordPass;
    work: AbortSignal;
    band: readonly [number, number];
  },
): Promise<TranscribedAndRendered> {
  const { deps, log, tracing } = ctx;
  const { media, style } = input;
  const stopBoth = new AbortController();
  const signal = AbortSignal.any([input.work, stopBoth.signal]);
  const done = { recognised: 0, rendered: 0 };
  const report = () => ctx.progress.reportWithin(input.band, RECOGNITION_SHARE * done.recognised + (1 - RECOGNITION_SHARE) * done.rendered);

  const cueStream = styledCueStream(style, media.durationSeconds);
  const cues: Cue[] = [];
  const words: PassedWord[] = [];
  const feed = new PassThrough({ objectMode: true });
  // A failure ends the feed with its error (stopOnFailure, below), also before the render reads it, or after the
  // render failed without reading it at all: the error is the attempt's, reported by the promises below, never
  // an 'error' event with no one listening (which would end the process).
  feed.on("error", () => undefined);
  const handOver = (final: Cue[]) => {
    cues.push(...final);
    feed.write(final);
  };
  // Each segment's words pass in order (the pass may look pronunciations up) before the cue stream takes them.
  let passing = Promise.resolve();
  const pass = (recognised: readonly Word[], horizon: number) => {
    passing = passing.then(async () => {
      const passed = await input.pass(recognised, signal);
      words.push(...passed);
      handOver(cueStream.add(passed, horizon));
    });
    // A failed pass stops both now; recognition, when it ends, takes the failure from `passing` (until then, or
    // if recognition fails first, it is heard here rather than left an unhandled rejection).
    passing.catch((error: unknown) => stopBoth.abort(error));
  };

  await ctx.enter("transcribing", input.band[0]);
  const recognition = tracing.stage("transcribe", async () => {
    const started = performance.now();
    const transcribed = await transcribeAudio({
      pcm: decodePcm16kMono(input.sourcePath, {
        signal,
        binary: deps.ffmpegPath,
        container: media.container,
        limitSeconds: media.durationSeconds,
        logger: log,
      }),
      engine: deps.engine,
      language: input.language,
      ...(input.vocabulary.length > 0 ? { vocabulary: input.vocabulary } : {}),
      ...(deps.speechDetectors ? { speechDetectors: deps.speechDetectors } : {}),
      signal,
      logger: log,
      onWords: pass,
      onProgress: (seconds) => {
        done.recognised = seconds / media.durationSeconds;
        report();
      },
    });
    await passing;
    handOver(cueStream.finish());
    feed.end();
    recordTranscription(deps.engine.name, (performance.now() - started) / 1000, media.durationSeconds);
    log.info({ words: transcribed.words.length, segments: transcribed.segments.length, cues: cues.length }, "transcribed");
    await ctx.enter("rendering", input.band[0]);
    return transcribed;
  });
  const render = renderCaptions(ctx, {
    cueStream: feed,
    sourcePath: input.sourcePath,
    media,
    style,
    seconds: input.seconds,
    work: signal,
    onProgress: (fraction) => {
      done.rendered = fraction;
      report();
    },
  });

  // The first failure (or the cancel) becomes the reason both stop for, and the attempt's outcome.
  const stopOnFailure = (error: unknown): never => {
    feed.destroy(error instanceof Error ? error : new Error(String(error)));
    stopBoth.abort(error);
    throw error;
  };
  const [transcribed, video] = await Promise.allSettled([recognition.catch(stopOnFailure), render.catch(stopOnFailure)]);
  if (transcribed.status === "rejected" || video.status === "rejected") throw stopBoth.signal.reason;
  return { transcribed: transcribed.value, words, cues, video: video.value };
}
