import type { Logger } from "pino";
import { pino } from "pino";
import type { Word } from "@caption/shared/api/transcript";
import { JobFailure } from "@caption/shared/errors/codes";
import { SAMPLE_RATE, type ExecutionProvider, type SpeechEngine, type SpeechSegment } from "../speech-engine.ts";
import { findInstalledModels, resolveInside, verifyInstalledModel, type InstalledModelDir } from "./model-files.ts";
import { readManifest, type FileRole, type InstalledModel } from "./model-manifest.ts";
import {
  cudaProviderShipped,
  loadSherpaAsr,
  parseRecognitionResult,
  type NativeOfflineRecognizer,
  type OfflineRecognizerConfig,
} from "./sherpa-native.ts";
import { tokensToWords } from "./token-words.ts";

export interface LoadSherpaEngineOptions {
  /** Folder holding installed models (each in a sub-folder with installed.json), or one model itself. */
  modelDir: string;
  /** Installed model name; default: the first installed in manifest order. */
  model?: string;
  provider?: ExecutionProvider;
  numThreads?: number;
  logger?: Logger;
  signal?: AbortSignal;
}

/** Detection is asked for with an empty language or "auto". */
const AUTO = new Set(["", "auto"]);
/** Shorter than one 25 ms analysis window plus margin: nothing to decode. */
const MIN_SEGMENT_SAMPLES = Math.round(0.1 * SAMPLE_RATE);

/**
 * Loads the sherpa-onnx recognizer for the model installed in `modelDir`, after checking every file
 * against its install record. Null when no model is installed there; throws ModelVerificationError
 * when one is installed but damaged.
 */
export async function loadSherpaEngine(options: LoadSherpaEngineOptions): Promise<SpeechEngine | null> {
  const logger = options.logger ?? pino({ level: "silent" });
  const installed = await findInstalledModels(options.modelDir);
  const chosen = await chooseModel(installed, options.model);
  if (!chosen) {
    if (options.model !== undefined) throw new Error(`model ${options.model} is not installed in ${options.modelDir}`);
    return null;
  }
  await verifyInstalledModel(chosen, options.signal);
  options.signal?.throwIfAborted();

  const { record } = chosen;
  const numThreads = options.numThreads ?? 2;
  let provider = options.provider ?? "cpu";
  if (provider === "cuda" && !cudaProviderShipped()) {
    logger.warn({ model: record.name }, "CUDA asked for, but this sherpa-onnx build has no CUDA provider: running on the CPU");
    provider = "cpu";
  }
  const create = (language: string) => createRecognizer(chosen, language, numThreads, provider, logger);
  const recognizer = await create("auto");
  logger.info({ engine: "sherpa-onnx", model: record.name, family: record.family, provider: recognizer.provider }, "speech recognizer loaded");
  return new SherpaEngine(record, recognizer, (language) => create(language).then((r) => r.native));
}

async function chooseModel(installed: InstalledModelDir[], wanted: string | undefined): Promise<InstalledModelDir | undefined> {
  if (wanted !== undefined) return installed.find((m) => m.record.name === wanted);
  const order = await readManifest()
    .then((manifest) => manifest.models.map((m) => m.name))
    .catch((): string[] => []);
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  return [...installed].sort((a, b) => rank(a.record.name) - rank(b.record.name))[0];
}

async function createRecognizer(
  model: InstalledModelDir,
  language: string,
  numThreads: number,
  provider: ExecutionProvider,
  logger: Logger,
): Promise<{ native: NativeOfflineRecognizer; provider: ExecutionProvider }> {
  const { OfflineRecognizer } = loadSherpaAsr();
  const config = recognizerConfig(model, language, numThreads, provider);
  try {
    return { native: await OfflineRecognizer.createAsync(config), provider };
  } catch (error) {
    if (provider === "cpu") throw error;
    logger.warn({ err: error, model: model.record.name }, "CUDA provider failed to load the model: falling back to the CPU");
    return { native: await OfflineRecognizer.createAsync(recognizerConfig(model, language, numThreads, "cpu")), provider: "cpu" };
  }
}

export function recognizerConfig(
  model: InstalledModelDir,
  language: string,
  numThreads: number,
  provider: ExecutionProvider,
): OfflineRecognizerConfig {
  const { record, dir } = model;
  const file = (role: FileRole) => {
    const entry = record.files.find((f) => f.role === role);
    if (!entry) throw new Error(`model ${record.name} has no ${role} file`);
    return resolveInside(dir, entry.path);
  };
  const base = { tokens: file("tokens"), numThreads, provider, debug: 0 as const };
  const transducer = () => ({ encoder: file("encoder"), decoder: file("decoder"), joiner: file("joiner") });
  const modelConfig = ((): OfflineRecognizerConfig["modelConfig"] => {
    switch (record.family) {
      case "nemo-ctc":
        return { ...base, nemoCtc: { model: file("model") } };
      case "nemo-transducer":
        return { ...base, modelType: "nemo_transducer", transducer: transducer() };
      case "transducer":
        return { ...base, modelType: "transducer", transducer: transducer() };
      case "sense-voice":
        return { ...base, senseVoice: { model: file("model"), language, useInverseTextNormalization: 1 } };
    }
  })();
  return { featConfig: { sampleRate: SAMPLE_RATE, featureDim: 80 }, modelConfig, decodingMethod: "greedy_search" };
}

class SherpaEngine implements SpeechEngine {
  readonly name = "sherpa-onnx";
  readonly model: string;
  readonly languages: readonly string[];
  readonly detectsLanguage: boolean;
  readonly provider: ExecutionProvider;
  readonly biasing = false;
  readonly #record: InstalledModel;
  /** Recognizers by language hint; "auto" is the one loaded at start. */
  readonly #recognizers = new Map<string, Promise<NativeOfflineRecognizer>>();
  readonly #createForLanguage: (language: string) => Promise<NativeOfflineRecognizer>;
  /** One decode at a time: the model already uses every thread it was given. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(record: InstalledModel, auto: { native: NativeOfflineRecognizer; provider: ExecutionProvider }, createForLanguage: (language: string) => Promise<NativeOfflineRecognizer>) {
    this.#record = record;
    this.provider = auto.provider;
    this.model = record.name;
    this.languages = record.languages;
    this.detectsLanguage = record.detectsLanguage;
    this.#recognizers.set("auto", Promise.resolve(auto.native));
    this.#createForLanguage = createForLanguage;
  }

  async transcribe(segment: SpeechSegment, options: { language: string; signal: AbortSignal }): Promise<Word[]> {
    const { signal } = options;
    signal.throwIfAborted();
    if (this.#closed) throw new Error("speech engine is closed");
    const recognizer = this.#recognizerFor(options.language);
    if (segment.samples.length < MIN_SEGMENT_SAMPLES) return [];

    const decoding = this.#queue.then(async () => {
      signal.throwIfAborted();
      const native = await recognizer;
      const stream = native.createStream();
      stream.acceptWaveform({ samples: segment.samples, sampleRate: SAMPLE_RATE });
      return parseRecognitionResult(await native.decodeAsync(stream));
    });
    this.#queue = decoding.catch(() => undefined);
    const result = await untilAborted(decoding, signal);
    const span = { start: segment.start, end: segment.start + segment.samples.length / SAMPLE_RATE };
    const timed = { tokens: result.tokens, timestamps: this.#record.tokenTimestamps ? result.timestamps : [], durations: result.durations, logProbs: result.ys_log_probs };
    return tokensToWords(timed, span);
  }

  #recognizerFor(language: string): Promise<NativeOfflineRecognizer> {
    const auto = AUTO.has(language);
    if (!auto && !this.languages.includes(language)) {
      throw new JobFailure(
        "UNSUPPORTED_LANGUAGE",
        `language "${language}" is not supported by model ${this.model}; it transcribes ${this.languages.join(", ")}`,
      );
    }
    // Only SenseVoice takes the language as a recognizer setting; the others transcribe what they hear.
    const key = auto || this.#record.family !== "sense-voice" ? "auto" : language;
    let recognizer = this.#recognizers.get(key);
    if (!recognizer) {
      recognizer = this.#createForLanguage(key);
      this.#recognizers.set(key, recognizer);
      void recognizer.catch(() => this.#recognizers.delete(key));
    }
    return recognizer;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
    // The native recognizers are freed when garbage-collected; dropping them is all there is to do.
    this.#recognizers.clear();
  }
}

/** Settles with `work`, or rejects with the abort reason as soon as `signal` aborts (the native decode finishes unobserved). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
