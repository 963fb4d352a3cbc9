import type { Word } from "@caption/shared/api/transcript";
import type { Env } from "@caption/shared/config/env";
import type { Logger } from "pino";

/** Where a speech engine runs inference: the values of `ASR_PROVIDER`. */
export type ExecutionProvider = Env["ASR_PROVIDER"];

/** A stretch of speech found by voice activity detection. */
export interface SpeechSegment {
  /** Absolute seconds in the video. */
  start: number;
  /** 16 kHz mono float32 samples. */
  samples: Float32Array;
}

export interface TranscribeOptions {
  /** One of the engine's `languages`, or "auto" on an engine that detects the language. */
  language: string;
  signal: AbortSignal;
  /**
   * Terms as the customer wrote them (names, jargon) to bias recognition toward. An engine with
   * `biasing` passes the ones its model can spell to the decoder; the others ignore the list.
   */
  vocabulary?: readonly string[];
  /** Called with the language (one of `languages`) the model says it heard in the segment, by engines whose model says. */
  onLanguage?: (language: string) => void;
  /** The job's log (its id bound): what the engine notices about this segment goes there rather than to its own. */
  logger?: Logger;
}

export interface SpeechEngine {
  /** "pocketsphinx" | "sherpa-onnx" */
  readonly name: string;
  /** Model id, e.g. "cmusphinx-en-us-5.2". */
  readonly model: string;
  /** ISO 639-1/3 codes it can transcribe. */
  readonly languages: readonly string[];
  readonly detectsLanguage: boolean;
  /** Where inference runs, after any fallback. */
  readonly provider: ExecutionProvider;
  /**
   * Whether `vocabulary` reaches the decoder (pocketsphinx: a second pass on a grammar offering the terms; sherpa-onnx
   * transducers: hotwords with modified beam search).
   */
  readonly biasing: boolean;
  /**
   * Words with absolute times (seconds), monotonic, inside [segment.start, segment.start + duration].
   */
  transcribe(segment: SpeechSegment, options: TranscribeOptions): Promise<Word[]>;
  close(): Promise<void>;
}

export const SAMPLE_RATE = 16000;
