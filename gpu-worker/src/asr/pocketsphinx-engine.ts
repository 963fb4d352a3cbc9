import { accessSync, constants, mkdtempSync, rmSync, statSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Word } from "@caption/shared/api/transcript";
import { JobFailure } from "@caption/shared/errors/codes";
import type { Logger } from "pino";
import { parseReply, replyLength } from "./pocketsphinx-hypseg.ts";
import { startPocketsphinxBatch, type PocketsphinxBatch } from "./pocketsphinx-process.ts";
import { SAMPLE_RATE, type SpeechEngine, type SpeechSegment } from "./speech-engine.ts";
import { createTermPass } from "./vocabulary/term-pass.ts";

export const DEFAULT_POCKETSPHINX_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";
export const DEFAULT_POCKETSPHINX_BINARY = "/usr/bin/pocketsphinx_batch";

export interface PocketsphinxEngineOptions {
  /** Holds en-us/ (acoustic model), en-us.lm.bin and cmudict-en-us.dict (Debian pocketsphinx-en-us). */
  modelDir?: string;
  /** `pocketsphinx_batch` from the Debian pocketsphinx package. */
  binary?: string;
  logger?: Logger;
}

/**
 * English-only fallback engine. One `pocketsphinx_batch` process is kept for the engine's life and
 * fed segment files through its control file, because starting it and loading the models (~0.27 s)
 * would add a third to the decoding time of a typical 5 s segment. In a job with a vocabulary, a
 * segment whose words could hide a term is decoded again on a grammar that offers it (vocabulary/term-pass.ts).
 */
export function createPocketsphinxEngine(options: PocketsphinxEngineOptions = {}): SpeechEngine {
  const modelDir = options.modelDir ?? DEFAULT_POCKETSPHINX_MODEL_DIR;
  const binary = options.binary ?? DEFAULT_POCKETSPHINX_BINARY;
  const logger = options.logger;
  const acousticModel = join(modelDir, "en-us");
  const languageModel = join(modelDir, "en-us.lm.bin");
  const dictionary = join(modelDir, "cmudict-en-us.dict");
  for (const path of [join(acousticModel, "mdef"), languageModel, dictionary]) {
    if (!statSync(path, { throwIfNoEntry: false })?.isFile()) {
      throw new Error(`pocketsphinx model file ${path} is missing (install the Debian package pocketsphinx-en-us)`);
    }
  }
  try {
    accessSync(binary, constants.X_OK);
  } catch (error) {
    throw new Error(`pocketsphinx binary ${binary} is missing (install the Debian package pocketsphinx)`, { cause: error });
  }

  const workDir = mkdtempSync(join(tmpdir(), "pocketsphinx-"));
  const args = [
    "-hmm", acousticModel, "-lm", languageModel, "-dict", dictionary,
    "-adcin", "yes", "-cepdir", workDir, "-cepext", ".raw",
    // Its own silence removal drops frames and would shift word times; the VAD already cut the segment.
    "-remove_silence", "no",
    // Per utterance: the hypothesis (how many words follow), the words' times, and their lattice posteriors.
    "-hyp", "/dev/stdout", "-hypseg", "/dev/stdout", "-ctm", "/dev/stdout",
  ];
  let batch: PocketsphinxBatch | undefined;
  const termPass = createTermPass({ modelDir, binary, workDir, ...(logger ? { logger } : {}) });
  let queue: Promise<unknown> = Promise.resolve();
  let counter = 0;
  let closed = false;

  function running(): PocketsphinxBatch {
    if (!batch) {
      const started = startPocketsphinxBatch(binary, args, replyLength, logger);
      logger?.debug({ pid: started.pid }, "pocketsphinx started");
      void started.exited.then(() => {
        logger?.debug({ pid: started.pid }, "pocketsphinx stopped");
        if (batch === started) batch = undefined;
      });
      batch = started;
    }
    return batch;
  }

  /**
   * The batch decoder's words for an utterance file, and how to stop it midway. Each word left without a
   * confidence is logged (to the job's log when given) with the reason.
   */
  function plain(log: Logger | undefined, segmentStart: number): (uttid: string) => Decoding {
    return (uttid) => {
      const decoder = running();
      const words = decoder.request(uttid).then((reply) => {
        const parsed = parseReply(reply);
        if (parsed.uttid !== uttid) throw new Error(`pocketsphinx answered ${parsed.uttid} to ${uttid}`);
        for (const { index, start, reason, detail } of parsed.unmatched) {
          const word = { uttid, word_index: index, word_start: segmentStart + start, reason, ...(detail === undefined ? {} : { detail }) };
          log?.warn({ ...word, words: parsed.words.length }, "word confidence not matched");
        }
        return parsed.words;
      });
      return { words, stop: () => decoder.kill() };
    };
  }

  /**
   * The batch decoder's words, then the vocabulary pass's. A cancel during the first pass stops the batch decoder; once
   * it is done, the signal kills the second pass, and the batch decoder (idle, shared) is left alone.
   */
  function twoPasses(vocabulary: readonly string[], signal: AbortSignal, log: Logger | undefined, segmentStart: number): (uttid: string) => Decoding {
    return (uttid) => {
      const first = plain(log, segmentStart)(uttid);
      let heard = false;
      const words = first.words.then((words) => ((heard = true), termPass({ uttid, heard: words, vocabulary, signal })));
      return { words, stop: () => (heard ? Promise.resolve() : first.stop()) };
    };
  }

  async function decode(segment: SpeechSegment, signal: AbortSignal, run: (uttid: string) => Decoding): Promise<Word[]> {
    signal.throwIfAborted();
    if (closed) throw new Error("pocketsphinx engine is closed");
    const uttid = `u${String(++counter).padStart(8, "0")}`;
    const file = join(workDir, `${uttid}.raw`);
    await writeFile(file, toPcm16(segment.samples), { signal });
    const decoding = run(uttid);
    const onAbort = (): void => void decoding.stop();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const words = await decoding.words;
      signal.throwIfAborted();
      const end = segment.start + segment.samples.length / SAMPLE_RATE;
      return words.map((word) => ({
        ...word,
        start: Math.min(segment.start + word.start, end),
        end: Math.min(segment.start + word.end, end),
      }));
    } catch (error) {
      signal.throwIfAborted();
      throw error;
    } finally {
      signal.removeEventListener("abort", onAbort);
      await rm(file, { force: true });
    }
  }

  return {
    name: "pocketsphinx",
    model: "cmusphinx-en-us-5.2",
    languages: ["en"],
    detectsLanguage: false,
    provider: "cpu",
    biasing: true,
    transcribe(segment, { language, signal, vocabulary, logger: jobLog }) {
      if (language !== "en") {
        return Promise.reject(new JobFailure("UNSUPPORTED_LANGUAGE", `pocketsphinx transcribes English only, not "${language}"`));
      }
      // One utterance at a time: each decoder uses a core, and the batch process reads one control line at a time.
      const log = jobLog ?? logger;
      const run = vocabulary && vocabulary.length > 0 ? twoPasses(vocabulary, signal, log, segment.start) : plain(log, segment.start);
      const result = queue.then(() => decode(segment, signal, run));
      queue = result.catch(() => undefined);
      return result;
    },
    async close() {
      closed = true;
      await queue;
      await batch?.kill();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/** An utterance being decoded: its words to come, and how to stop the decoder midway. */
interface Decoding {
  words: Promise<Word[]>;
  stop: () => Promise<void>;
}

function toPcm16(samples: Float32Array): Buffer {
  const pcm = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    const clamped = Math.max(-1, Math.min(1, samples[i] ?? 0));
    pcm.writeInt16LE(Math.round(clamped * 32767), i * 2);
  }
  return pcm;
}
