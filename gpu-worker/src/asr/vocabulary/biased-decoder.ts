import { spawn } from "node:child_process";
import { appendFile, copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Word } from "@caption/shared/api/transcript";
import type { Logger } from "pino";
import { spokenWord } from "../pocketsphinx-hypseg.ts";
import type { BiasedDecoderSetup, DecodedSegment } from "./biased-decoder-process.ts";
import type { BiasPlan } from "./pocketsphinx-bias.ts";

/** The probability each term word gets from the terms' model, and the most that model may weigh in the interpolation. */
export const TERM_PROBABILITY = 0.01;
const MAX_TERMS_WEIGHT = 0.5;
const FRAMES_PER_SECOND = 100;
const STDERR_TAIL_CHARS = 2_000;

export interface BiasedDecoder {
  /** Decodes one utterance (a 16 kHz mono s16le file); words in seconds from its start, with their posteriors. */
  decode(file: string): Promise<Word[]>;
  /** SIGKILL, then its files are removed. */
  close(): Promise<void>;
}

/**
 * Starts a pocketsphinx decoder biased toward the plan's words in a child process: the model's dictionary copied
 * with their pronunciations appended, and its language model interpolated with a unigram model of the words (each
 * TERM_PROBABILITY there). Resolves once the models are loaded.
 */
export async function startBiasedDecoder(input: { modelDir: string; plan: BiasPlan; logger?: Logger }): Promise<BiasedDecoder> {
  const dir = await mkdtemp(join(tmpdir(), "pocketsphinx-bias-"));
  const dictionary = join(dir, "dictionary.dict");
  await copyFile(join(input.modelDir, "cmudict-en-us.dict"), dictionary);
  const added = input.plan.words.flatMap(({ key, pronunciations }) => pronunciations.map((phones, i) => `${key}${i === 0 ? "" : `(${i + 1})`} ${phones.join(" ")}\n`));
  await appendFile(dictionary, added.join(""));
  const termsModel = join(dir, "terms.lm");
  const keys = input.plan.words.map((w) => w.key);
  await writeFile(termsModel, unigramModel(keys));
  const setup: BiasedDecoderSetup = {
    acousticModel: join(input.modelDir, "en-us"),
    languageModel: join(input.modelDir, "en-us.lm.bin"),
    dictionary,
    termsModel,
    termsWeight: Math.min(MAX_TERMS_WEIGHT, TERM_PROBABILITY * Math.max(1, keys.length)),
  };

  const child = spawn(process.execPath, [join(import.meta.dirname, "biased-decoder-process.ts")], { stdio: ["pipe", "pipe", "pipe"] });
  let stderrTail = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => (stderrTail = (stderrTail + text).slice(-STDERR_TAIL_CHARS)));
  child.stdin.on("error", () => {});
  const waiting = new Map<string, { resolve: (message: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  let failure: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once("error", (error) => (failure ??= error));
    child.once("close", (code, signal) => {
      failure ??= new Error(`the biased pocketsphinx decoder stopped (${signal ?? `code ${code}`}): ${stderrTail.trim().split("\n").slice(-3).join(" | ")}`);
      for (const { reject } of waiting.values()) reject(failure);
      waiting.clear();
      resolve();
    });
  });
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line) as Record<string, unknown>;
    const id = typeof message.id === "string" ? message.id : "setup";
    waiting.get(id)?.resolve(message);
    waiting.delete(id);
  });
  const ask = (id: string, payload: object) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      if (failure) return reject(failure);
      waiting.set(id, { resolve, reject });
      child.stdin.write(`${JSON.stringify(payload)}\n`);
    });
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await ask("setup", setup);
    input.logger?.debug({ pid: child.pid, words: keys.length, pronunciations: added.length, terms_weight: setup.termsWeight }, "biased pocketsphinx decoder ready");
  } catch (error) {
    await close();
    throw error;
  }
  let counter = 0;
  return {
    async decode(file) {
      const answer = await ask(`d${++counter}`, { id: `d${counter}`, file });
      if (typeof answer.error === "string") throw new Error(answer.error);
      return wordsOf(answer.words as DecodedSegment[]);
    },
    close,
  };
}

/** Real words only (fillers and silences dropped, variant suffixes removed); a word lasts until the next entry starts. */
function wordsOf(segments: readonly DecodedSegment[]): Word[] {
  return segments.flatMap((segment) => {
    const text = spokenWord(segment.word);
    if (text === undefined) return [];
    const confidence = Math.round(segment.posterior * 1000) / 1000;
    return [{ text, start: segment.startFrame / FRAMES_PER_SECOND, end: (segment.endFrame + 1) / FRAMES_PER_SECOND, confidence }];
  });
}

/** An ARPA unigram model in which every word is equally likely (sentence marks included, as the format needs). */
export function unigramModel(words: readonly string[]): string {
  const log10 = (-Math.log10(words.length + 1)).toFixed(6);
  return ["\\data\\", `ngram 1=${words.length + 2}`, "", "\\1-grams:", `-99 <s> 0`, `${log10} </s> 0`, ...words.map((w) => `${log10} ${w} 0`), "", "\\end\\", ""].join("\n");
}
