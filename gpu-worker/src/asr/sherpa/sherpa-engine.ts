import type { Logger } from "pino";
import { pino } from "pino";
import type { Word } from "@caption/shared/api/transcript";
import { JobFailure } from "@caption/shared/errors/codes";
import { SAMPLE_RATE, type ExecutionProvider, type SpeechEngine, type SpeechSegment, type TranscribeOptions } from "../speech-engine.ts";
import { hotwordsFor, prepareHotwordSpelling, type HotwordSpelling } from "./hotwords.ts";
import { findInstalledModels, resolveInside, verifyInstalledModel, type InstalledModelDir } from "./model-files.ts";
import { readManifest } from "./model-manifest.ts";
import { BIASING_FAMILIES, recognizerConfig, type RecognizerSettings } from "./recognizer-config.ts";
import { cudaProviderShipped, loadSherpaAsr, parseRecognitionResult, type NativeOfflineRecognizer } from "./sherpa-native.ts";
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
  const recognizer = await createRecognizer(chosen, { language: "auto", numThreads, provider }, logger);
  logger.info({ engine: "sherpa-onnx", model: record.name, family: record.family, provider: recognizer.provider }, "speech recognizer loaded");
  // Later recognizers (a language hint, hotwords) run where the first one ended up.
  const create = (settings: Omit<RecognizerSettings, "numThreads" | "provider">) =>
    createRecognizer(chosen, { ...settings, numThreads, provider: recognizer.provider }, logger).then((r) => r.native);
  return new SherpaEngine(chosen, recognizer, create, logger);
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
  settings: RecognizerSettings,
  logger: Logger,
): Promise<{ native: NativeOfflineRecognizer; provider: ExecutionProvider }> {
  const { OfflineRecognizer } = loadSherpaAsr();
  try {
    return { native: await OfflineRecognizer.createAsync(recognizerConfig(model, settings)), provider: settings.provider };
  } catch (error) {
    if (settings.provider === "cpu") throw error;
    logger.warn({ err: error, model: model.record.name }, "CUDA provider failed to load the model: falling back to the CPU");
    return { native: await OfflineRecognizer.createAsync(recognizerConfig(model, { ...settings, provider: "cpu" })), provider: "cpu" };
  }
}

type CreateRecognizer = (settings: Omit<RecognizerSettings, "numThreads" | "provider">) => Promise<NativeOfflineRecognizer>;

class SherpaEngine implements SpeechEngine {
  readonly name = "sherpa-onnx";
  readonly model: string;
  readonly languages: readonly string[];
  readonly detectsLanguage: boolean;
  readonly provider: ExecutionProvider;
  readonly biasing: boolean;
  readonly #installed: InstalledModelDir;
  readonly #logger: Logger;
  /** Recognizers by language hint and decoding; "auto" greedy is the one loaded at start. */
  readonly #recognizers = new Map<string, Promise<NativeOfflineRecognizer>>();
  readonly #create: CreateRecognizer;
  /** Made on the first job with a vocabulary: the pieces and bpe.vocab hotwords are spelt with. */
  #spelling: Promise<HotwordSpelling> | undefined;
  /** The hotwords of each job's vocabulary (the same array for all its segments), worked out once. */
  readonly #hotwords = new WeakMap<readonly string[], string>();
  /** One decode at a time: the model already uses every thread it was given. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(installed: InstalledModelDir, auto: { native: NativeOfflineRecognizer; provider: ExecutionProvider }, create: CreateRecognizer, logger: Logger) {
    const record = installed.record;
    this.#installed = installed;
    this.#logger = logger;
    this.provider = auto.provider;
    this.model = record.name;
    this.languages = record.languages;
    this.detectsLanguage = record.detectsLanguage;
    this.biasing = BIASING_FAMILIES.has(record.family);
    this.#recognizers.set("auto", Promise.resolve(auto.native));
    this.#create = create;
  }

  async transcribe(segment: SpeechSegment, options: TranscribeOptions): Promise<Word[]> {
    const { signal } = options;
    signal.throwIfAborted();
    if (this.#closed) throw new Error("speech engine is closed");
    const language = this.#checkedLanguage(options.language);
    const hotwords = this.biasing && options.vocabulary && options.vocabulary.length > 0 ? await this.#hotwordsOf(options.vocabulary) : "";
    const recognizer = this.#recognizerFor(language, hotwords !== "");
    if (segment.samples.length < MIN_SEGMENT_SAMPLES) return [];

    const decoding = this.#queue.then(async () => {
      signal.throwIfAborted();
      const native = await recognizer;
      const stream = hotwords === "" ? native.createStream() : native.createStream(hotwords);
      stream.acceptWaveform({ samples: segment.samples, sampleRate: SAMPLE_RATE });
      return parseRecognitionResult(await native.decodeAsync(stream));
    });
    this.#queue = decoding.catch(() => undefined);
    const result = await untilAborted(decoding, signal);
    const heard = spokenLanguage(result.lang);
    if (heard !== undefined && this.languages.includes(heard)) options.onLanguage?.(heard);
    const span = { start: segment.start, end: segment.start + segment.samples.length / SAMPLE_RATE };
    const timestamps = this.#installed.record.tokenTimestamps ? result.timestamps : [];
    const timed = { tokens: result.tokens, timestamps, durations: result.durations, logProbs: result.ys_log_probs };
    return tokensToWords(timed, span);
  }

  /** The recognizer key for `language`: only SenseVoice takes the language as a setting; the others transcribe what they hear. */
  #checkedLanguage(language: string): string {
    const auto = AUTO.has(language);
    if (!auto && !this.languages.includes(language)) {
      throw new JobFailure(
        "UNSUPPORTED_LANGUAGE",
        `language "${language}" is not supported by model ${this.model}; it transcribes ${this.languages.join(", ")}`,
      );
    }
    return auto || this.#installed.record.family !== "sense-voice" ? "auto" : language;
  }

  #recognizerFor(language: string, biased: boolean): Promise<NativeOfflineRecognizer> {
    const key = biased ? `${language}+hotwords` : language;
    let recognizer = this.#recognizers.get(key);
    if (!recognizer) {
      recognizer = biased
        ? this.#spellingReady().then((spelling) => this.#create({ language, hotwords: { bpeVocab: spelling.bpeVocab } }))
        : this.#create({ language });
      this.#recognizers.set(key, recognizer);
      void recognizer.catch(() => this.#recognizers.delete(key));
    }
    return recognizer;
  }

  #spellingReady(): Promise<HotwordSpelling> {
    if (!this.#spelling) {
      const { dir, record } = this.#installed;
      const tokens = record.files.find((f) => f.role === "tokens");
      if (!tokens) throw new Error(`model ${this.model} has no tokens file`);
      const spelling = prepareHotwordSpelling(resolveInside(dir, tokens.path));
      this.#spelling = spelling;
      void spelling.catch(() => (this.#spelling = undefined));
    }
    return this.#spelling;
  }

  async #hotwordsOf(vocabulary: readonly string[]): Promise<string> {
    const known = this.#hotwords.get(vocabulary);
    if (known !== undefined) return known;
    const { hotwords, spelt, unspellable } = hotwordsFor(vocabulary, (await this.#spellingReady()).pieces);
    this.#hotwords.set(vocabulary, hotwords);
    // Counts only: the terms are the customer's (names among them).
    this.#logger.info({ model: this.model, terms: spelt.length, unspellable: unspellable.length }, "vocabulary passed to the recognizer as hotwords");
    return hotwords;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
    // The native recognizers are freed when garbage-collected; dropping them is all there is to do.
    this.#recognizers.clear();
    const spelling = this.#spelling;
    this.#spelling = undefined;
    await spelling?.then((s) => s.dispose()).catch(() => undefined);
  }
}

/** "en" from SenseVoice's "<|en|>"; undefined for no tag, or "<|nospeech|>" and other tags that name no language code. */
function spokenLanguage(tag: string | undefined): string | undefined {
  return tag?.match(/^<\|([a-z]{2,3})\|>$/)?.[1];
}

/** Settles with `work`, or rejects with the abort reason as soon as `signal` aborts (the native decode finishes unobserved). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
