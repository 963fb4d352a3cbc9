import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Word } from "@caption/shared/api/transcript";
import { execa } from "execa";
import type { Logger } from "pino";
import { parseHypseg } from "../pocketsphinx-hypseg.ts";
import { lastErrorLines } from "../pocketsphinx-process.ts";
import { loadPronouncingDictionary } from "./cmu-dictionary.ts";
import { planBias, type BiasPlan } from "./pocketsphinx-bias.ts";
import { termGrammar } from "./term-grammar.ts";

/** Vocabularies whose plans are kept (jobs running at once rarely share one; a plan is cheap to make again). */
const PLANS_KEPT = 8;
/** A word of the second pass counts as the first pass's own when it starts this close to it (seconds). */
const SAME_WORD_SECONDS = 0.1;

/** A segment the batch decoder has decoded: its id (its file is `<workDir>/<uttid>.raw`) and the words it heard. */
export interface TermPassInput {
  uttid: string;
  heard: Word[];
  vocabulary: readonly string[];
  signal: AbortSignal;
}

export interface TermPassOptions {
  modelDir: string;
  /** `pocketsphinx_batch`. */
  binary: string;
  /** Where the segment files are; the pass's files go there too. */
  workDir: string;
  logger?: Logger;
}

/**
 * The second pass of a segment whose job has a vocabulary: `pocketsphinx_batch` decodes the segment again on a
 * grammar of the words the first pass heard, in which runs of them that could be a term may be the term instead
 * (term-grammar.ts), with a dictionary of just those words. A process per segment that has such runs: it loads
 * only the acoustic model, and a cancel kills it.
 */
export function createTermPass(options: TermPassOptions): (input: TermPassInput) => Promise<Word[]> {
  const plans = new Map<string, Promise<BiasPlan>>();
  const dictionaryPath = join(options.modelDir, "cmudict-en-us.dict");

  function planFor(vocabulary: readonly string[], signal: AbortSignal): Promise<BiasPlan> {
    const key = JSON.stringify([...new Set(vocabulary)].sort());
    let plan = plans.get(key);
    if (!plan) {
      if (plans.size >= PLANS_KEPT) plans.delete(plans.keys().next().value!);
      plan = loadPronouncingDictionary(dictionaryPath).then((dictionary) => planBias(vocabulary, dictionary, { signal }));
      plans.set(key, plan);
      plan.catch(() => plans.delete(key));
    }
    return plan;
  }

  return async ({ uttid, heard, vocabulary, signal }) => {
    const [plan, dictionary] = await Promise.all([planFor(vocabulary, signal), loadPronouncingDictionary(dictionaryPath)]);
    const grammar = termGrammar(heard.map((w) => w.text), plan, dictionary);
    if (!grammar) return heard;
    const path = (ext: string) => join(options.workDir, `${uttid}${ext}`);
    try {
      await Promise.all([writeFile(path(".fsg"), grammar.fsg), writeFile(path(".dict"), grammar.dictionary), writeFile(path(".ctl"), `${uttid}\n`)]);
      const run = await execa(
        options.binary,
        ["-hmm", join(options.modelDir, "en-us"), "-fsg", path(".fsg"), "-dict", path(".dict"), "-adcin", "yes", "-cepdir", options.workDir, "-cepext", ".raw",
          "-remove_silence", "no", "-ctl", path(".ctl"), "-hypseg", path(".hypseg")],
        { cancelSignal: signal, forceKillAfterDelay: false, killSignal: "SIGKILL", reject: false, stdin: "ignore", stdout: "ignore" },
      );
      signal.throwIfAborted();
      if (run.failed) throw new Error(`pocketsphinx's vocabulary pass failed (${run.signal ?? `code ${run.exitCode}`}): ${lastErrorLines(String(run.stderr) || (run.originalMessage ?? ""))}`);
      const line = (await readFile(path(".hypseg"), "utf8")).trim();
      const words = parseHypseg(line).words;
      options.logger?.debug({ uttid, alternatives: grammar.alternatives, heard: heard.length, words: words.length }, "vocabulary pass decoded");
      return withConfidence(words, heard);
    } finally {
      await Promise.all([".fsg", ".dict", ".ctl", ".hypseg"].map((ext) => rm(path(ext), { force: true })));
    }
  };
}

/**
 * The grammar's lattice has one path, so its posteriors say nothing: a word the first pass heard at the same place
 * keeps its confidence there, and a term takes the lowest of the words it stands for.
 */
function withConfidence(words: readonly Word[], heard: readonly Word[]): Word[] {
  return words.map((word) => {
    const same = heard.find((h) => h.text === word.text && Math.abs(h.start - word.start) < SAME_WORD_SECONDS);
    const covered = same ? [same] : heard.filter((h) => h.start < word.end && h.end > word.start);
    const confidences = covered.flatMap((h) => (h.confidence === undefined ? [] : [h.confidence]));
    return confidences.length > 0 ? { ...word, confidence: Math.min(...confidences) } : word;
  });
}
