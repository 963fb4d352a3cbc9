import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

// sherpa-onnx-node is CommonJS without type declarations: the slice of it used here, typed once.
export interface NativeOfflineStream {
  acceptWaveform(waveform: { samples: Float32Array; sampleRate: number }): void;
}
export interface NativeOfflineRecognizer {
  /** `hotwords` (phrases separated by "/") bias this stream only; the recognizer must decode with modified_beam_search. */
  createStream(hotwords?: string): NativeOfflineStream;
  decodeAsync(stream: NativeOfflineStream): Promise<unknown>;
}
interface SherpaAsrModule {
  OfflineRecognizer: { createAsync(config: OfflineRecognizerConfig): Promise<NativeOfflineRecognizer> };
}

export interface OfflineRecognizerConfig {
  featConfig: { sampleRate: number; featureDim: number };
  modelConfig: {
    tokens: string;
    numThreads: number;
    provider: "cpu" | "cuda";
    debug: 0 | 1;
    modelType?: string;
    /** "bpe" with `bpeVocab`: hotwords are given as words and spelt into pieces by sherpa-onnx. */
    modelingUnit?: "bpe";
    bpeVocab?: string;
    nemoCtc?: { model: string };
    transducer?: { encoder: string; decoder: string; joiner: string };
    senseVoice?: { model: string; language: string; useInverseTextNormalization: 0 | 1 };
  };
  decodingMethod: "greedy_search" | "modified_beam_search";
  maxActivePaths?: number;
  /** Added to a hotword piece's log-probability at each step of modified beam search. */
  hotwordsScore?: number;
}

/** `OfflineRecognitionResult::AsJsonString()`, the fields used here. */
export const RecognitionResultSchema = Type.Object({
  text: Type.String(),
  tokens: Type.Array(Type.String()),
  timestamps: Type.Array(Type.Number()),
  durations: Type.Optional(Type.Array(Type.Number())),
  ys_log_probs: Type.Optional(Type.Array(Type.Number())),
  lang: Type.Optional(Type.String()),
});
export type RecognitionResult = Static<typeof RecognitionResultSchema>;

const requireHere = createRequire(import.meta.url);

/** Loaded on first use: the addon is large and only the sherpa engine needs it. */
export function loadSherpaAsr(): SherpaAsrModule {
  return requireHere("sherpa-onnx-node") as SherpaAsrModule;
}

export function parseRecognitionResult(json: unknown): RecognitionResult {
  if (!Value.Check(RecognitionResultSchema, json)) {
    const first = Value.Errors(RecognitionResultSchema, json).First();
    throw new Error(`sherpa-onnx returned an unexpected result at ${first?.path ?? "/"}: ${first?.message ?? "unknown"}`);
  }
  return json;
}

/**
 * Whether the installed sherpa-onnx native package carries onnxruntime's CUDA provider. The npm
 * builds are CPU-only; asked for "cuda" they print a warning and silently run on the CPU, so the
 * worker checks first and says so in its own log.
 */
export function cudaProviderShipped(): boolean {
  const platform = process.platform === "win32" ? "win" : process.platform;
  try {
    const nativeDir = dirname(requireHere.resolve(`sherpa-onnx-${platform}-${process.arch}/package.json`));
    return ["libonnxruntime_providers_cuda.so", "onnxruntime_providers_cuda.dll"].some((lib) => existsSync(join(nativeDir, lib)));
  } catch {
    return false;
  }
}
