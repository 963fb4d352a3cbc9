import type { Segment, Word } from "@caption/shared/api/transcript";
import { JobFailure } from "@caption/shared/errors/codes";
import { withoutPaths } from "@caption/shared/errors/redact-paths";
import type { Logger } from "pino";
import { SAMPLE_RATE, type SpeechEngine, type SpeechSegment, type TranscribeOptions } from "./speech-engine.ts";
import type { SpeechDetectors } from "./speech-detectors.ts";
import { segmentSpeech } from "./voice-activity.ts";

export interface TranscribeAudioOptions {
  /** 16 kHz mono float32, streamed. */
  pcm: AsyncIterable<Float32Array>;
  engine: SpeechEngine;
  /** One of engine.languages, or "auto" when the engine detects languages. */
  language: string;
  /** Terms to bias recognition toward, as the customer wrote them; only engines with `biasing` use them. */
  vocabulary?: readonly string[];
  /** The worker's voice-activity detectors (built before it takes jobs); without, one is built for this call, of `vadModelPath`. */
  speechDetectors?: SpeechDetectors;
  /** Default: the pinned Silero VAD v6.2 model that models:download installs. */
  vadModelPath?: string;
  maxSegmentSeconds?: number;
  firstSegmentSeconds?: number;
  signal: AbortSignal;
  /** Seconds of audio fully handled so far, from the start; called with the full duration at the end. */
  onProgress?: (processedSeconds: number) => void;
  /**
   * The words of each speech segment as it is recognised (possibly none), with the horizon: no word still
   * to come starts before it. Lets captions be built and drawn while recognition goes on.
   */
  onWords?: (words: readonly Word[], horizon: number) => void;
  logger?: Logger;
}

export interface TranscribedAudio {
  words: Word[];
  /** The stretches the voice-activity detector called speech (absolute seconds, unpadded), in order. */
  speech: { start: number; end: number }[];
  /** Speech segments that produced words; text is their words joined by spaces. */
  segments: Segment[];
  /** Seconds of audio read. */
  duration: number;
  /** The language the engine said it heard in most of the speech (by seconds), when it says. */
  language?: string;
}

/** Voice activity detection, then the engine on each speech segment, one at a time. */
export async function transcribeAudio(options: TranscribeAudioOptions): Promise<TranscribedAudio> {
  const { engine, language, vocabulary, signal, logger } = options;
  signal.throwIfAborted();
  if (!engine.languages.includes(language) && !(language === "auto" && engine.detectsLanguage)) {
    throw new JobFailure(
      "UNSUPPORTED_LANGUAGE",
      `language "${language}" is not supported by ${engine.name} (${engine.model}); it transcribes ${engine.languages.join(", ")}`,
    );
  }
  let totalSamples = 0;
  async function* counted(): AsyncGenerator<Float32Array> {
    for await (const chunk of options.pcm) {
      totalSamples += chunk.length;
      yield chunk;
    }
  }

  const words: Word[] = [];
  const segments: Segment[] = [];
  let previousEnd = 0;
  let decodeMs = 0;
  let speechSeconds = 0;
  const stretches: { start: number; end: number }[] = [];
  const heard = new Map<string, number>();
  const speech = segmentSpeech(counted(), {
    signal,
    onSpeech: (stretch) => stretches.push(stretch),
    ...(options.speechDetectors !== undefined ? { detectors: options.speechDetectors } : {}),
    ...(options.vadModelPath !== undefined ? { modelPath: options.vadModelPath } : {}),
    ...(options.maxSegmentSeconds !== undefined ? { maxSegmentSeconds: options.maxSegmentSeconds } : {}),
    ...(options.firstSegmentSeconds !== undefined ? { firstSegmentSeconds: options.firstSegmentSeconds } : {}),
  });
  for await (const segment of speech) {
    const start = Math.max(segment.start, previousEnd);
    const end = Math.max(start, segment.start + segment.samples.length / SAMPLE_RATE);
    const began = performance.now();
    const onLanguage = (code: string) => heard.set(code, (heard.get(code) ?? 0) + (end - segment.start));
    // No word still to come starts before this segment: the captions up to it are final while it is decoded.
    if (start > previousEnd) options.onWords?.([], start);
    const raw = await recognise(engine, segment, { language, signal, onLanguage, ...(vocabulary ? { vocabulary } : {}), ...(logger ? { logger } : {}) });
    decodeMs += performance.now() - began;
    speechSeconds += end - segment.start;
    const placed = placeWords(raw, start, end);
    logger?.debug({ segment_start: segment.start, segment_seconds: end - segment.start, words: placed.length }, "speech segment transcribed");
    if (placed.length > 0) {
      words.push(...placed);
      segments.push({ start, end, text: placed.map((word) => word.text).join(" ") });
    }
    previousEnd = end;
    // Later segments start where this one ends, and their words are placed no earlier.
    options.onWords?.(placed, end);
    options.onProgress?.(end);
  }
  const duration = totalSamples / SAMPLE_RATE;
  options.onProgress?.(duration);
  logger?.info(
    {
      engine: engine.name,
      model: engine.model,
      audio_seconds: duration,
      speech_seconds: speechSeconds,
      segments: segments.length,
      words: words.length,
      decode_rtf: speechSeconds > 0 ? decodeMs / 1000 / speechSeconds : 0,
    },
    "audio transcribed",
  );
  const [mostHeard] = [...heard].sort((a, b) => b[1] - a[1]);
  return { words, speech: stretches, segments, duration, ...(mostHeard ? { language: mostHeard[0] } : {}) };
}

async function recognise(engine: SpeechEngine, segment: SpeechSegment, options: TranscribeOptions): Promise<Word[]> {
  const { signal } = options;
  try {
    return await engine.transcribe(segment, options);
  } catch (error) {
    signal.throwIfAborted();
    if (error instanceof JobFailure) throw error;
    const message = withoutPaths(error instanceof Error ? error.message : String(error));
    throw new JobFailure("TRANSCRIPTION_FAILED", `${engine.name} failed on the speech at ${segment.start.toFixed(2)} s: ${message}`, {
      cause: error,
    });
  }
}

/**
 * Words in time order, clamped into [start, end] and never overlapping each other; the engines
 * promise this, but a caption renderer must be able to rely on it.
 */
export function placeWords(raw: readonly Word[], start: number, end: number): Word[] {
  const placed: Word[] = [];
  let cursor = start;
  for (const word of [...raw].sort((a, b) => a.start - b.start)) {
    const text = word.text.trim();
    if (text === "" || !Number.isFinite(word.start) || !Number.isFinite(word.end)) continue;
    const wordStart = Math.min(Math.max(word.start, cursor), end);
    const wordEnd = Math.min(Math.max(word.end, wordStart), end);
    placed.push({ ...word, text, start: wordStart, end: wordEnd });
    cursor = wordEnd;
  }
  return placed;
}
