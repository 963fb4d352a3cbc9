import { join } from "node:path";
import type { Logger } from "pino";
import { startBiasedDecoder, type BiasedDecoder } from "./biased-decoder.ts";
import { loadPronouncingDictionary } from "./cmu-dictionary.ts";
import { planBias } from "./pocketsphinx-bias.ts";

/** Jobs decoding at once rarely share a vocabulary: one decoder each, for as many as a worker runs at once. */
const MAX_DECODERS = 2;
/** A decoder unused this long (its job ended) is stopped. */
const IDLE_MS = 30_000;

/**
 * The biased decoders of a pocketsphinx engine, one per vocabulary: started on a job's first segment, kept for
 * its next ones, stopped when idle or when another vocabulary needs the room.
 */
export class BiasedDecoders {
  readonly #modelDir: string;
  readonly #logger: Logger | undefined;
  readonly #decoders = new Map<string, { decoder: Promise<BiasedDecoder>; timer?: NodeJS.Timeout }>();

  constructor(modelDir: string, logger?: Logger) {
    this.#modelDir = modelDir;
    this.#logger = logger;
  }

  /** The decoder for this vocabulary, started if need be. */
  get(vocabulary: readonly string[], signal: AbortSignal): Promise<BiasedDecoder> {
    const key = JSON.stringify([...new Set(vocabulary)].sort());
    let entry = this.#decoders.get(key);
    if (entry) {
      // Most recently used last.
      this.#decoders.delete(key);
    } else {
      for (const [oldest] of this.#decoders) {
        if (this.#decoders.size < MAX_DECODERS) break;
        void this.drop(oldest);
      }
      const decoder = this.#start(vocabulary, signal);
      entry = { decoder };
      void decoder.catch(() => this.#decoders.delete(key));
    }
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => void this.drop(key), IDLE_MS).unref();
    this.#decoders.set(key, entry);
    return entry.decoder;
  }

  /** Stops the decoder of this vocabulary (after a cancel killed its utterance midway, or when idle). */
  async drop(keyOrVocabulary: string | readonly string[]): Promise<void> {
    const key = typeof keyOrVocabulary === "string" ? keyOrVocabulary : JSON.stringify([...new Set(keyOrVocabulary)].sort());
    const entry = this.#decoders.get(key);
    if (!entry) return;
    this.#decoders.delete(key);
    clearTimeout(entry.timer);
    await entry.decoder.then((decoder) => decoder.close()).catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#decoders.keys()].map((key) => this.drop(key)));
  }

  async #start(vocabulary: readonly string[], signal: AbortSignal): Promise<BiasedDecoder> {
    const dictionary = await loadPronouncingDictionary(join(this.#modelDir, "cmudict-en-us.dict"));
    const plan = await planBias(vocabulary, dictionary, { signal });
    this.#logger?.info({ terms: vocabulary.length, words: plan.words.length, not_biased: plan.notBiased.length }, "starting a biased pocketsphinx decoder");
    return startBiasedDecoder({ modelDir: this.#modelDir, plan, ...(this.#logger ? { logger: this.#logger } : {}) });
  }
}
