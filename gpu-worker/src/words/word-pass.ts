import type { ProfanityMode, Replacements } from "@caption/shared/api/custom-words";
import type { Word } from "@caption/shared/api/transcript";
import { termWords } from "../asr/vocabulary/pocketsphinx-bias.ts";
import type { PhoneticLexicon } from "../asr/vocabulary/phonetic-lexicon.ts";
import { bareKey, type PassedWord } from "./passed-word.ts";
import { applyProfanity } from "./profanity.ts";
import { applyReplacements } from "./replacements.ts";
import { sayingsAfter, type SnapTerm } from "./vocabulary-snap.ts";
import { startVocabularySnapper, type VocabularyWork } from "./vocabulary-snapper.ts";

export interface WordPassOptions {
  vocabulary: readonly string[];
  replacements: Replacements;
  profanity: ProfanityMode;
}

/**
 * Work units the vocabulary post-pass may spend per second of video (at least one second): comparing sounds
 * costs about one unit per cell of an edit distance (docs/vocabulary.md has the figures behind the number).
 */
export const VOCABULARY_UNITS_PER_SECOND = 1_000_000;
export const vocabularyBudget = (seconds: number): number => VOCABULARY_UNITS_PER_SECOND * Math.max(1, Math.ceil(seconds));

export interface WordPassSetup {
  /** The video's length: the vocabulary work budget grows with it. */
  seconds: number;
  signal?: AbortSignal;
  /** Replaces vocabularyBudget(seconds). */
  budget?: number;
  /** Hears the vocabulary work spent so far, word by word. */
  onProgress?: (used: number) => void;
}

/** Recognised words → the words a job shows and keeps: snapped to vocabulary terms, replaced, masked (in that order). */
export type WordPass = (words: readonly Word[], signal?: AbortSignal) => Promise<PassedWord[]>;

/** A job's word pass, which closes when the job is done with it. */
export type JobWordPass = WordPass & {
  /** What the vocabulary post-pass spent; null without vocabulary. */
  readonly work: VocabularyWork | null;
  /** Resolves once the vocabulary thread can take words (at once without vocabulary). */
  ready(): Promise<void>;
  /** Stops the pass's vocabulary thread (if it has one). */
  close(): Promise<void>;
};

/**
 * The job's terms, each once: terms written alike but for case are the same words to look for, and the first
 * as written wins (the post-pass would have picked it anyway).
 */
export function distinctTerms(vocabulary: readonly string[]): string[] {
  const byWords = new Map<string, string>();
  for (const term of vocabulary) {
    const key = termWords(term).join(" ");
    if (!byWords.has(key)) byWords.set(key, term);
  }
  return [...byWords.values()];
}

/** Prepares the pass: the terms' pronunciations are looked up once, and the vocabulary thread started. */
export async function createWordPass(options: WordPassOptions, lexicon: PhoneticLexicon, setup: WordPassSetup): Promise<JobWordPass> {
  const vocabulary = distinctTerms(options.vocabulary);
  const words = vocabulary.map(termWords);
  const phones = await lexicon.lookup(words.flat(), setup.signal);
  const terms: SnapTerm[] = vocabulary.map((text, t) => {
    let pronunciations: string[][] = [[]];
    for (const word of words[t]!) pronunciations = sayingsAfter(pronunciations, phones.get(word) ?? [], (head, tail) => [...head, ...tail]);
    return { text, words: words[t]!.map(bareKey), pronunciations: pronunciations.filter((p) => p.length > 0) };
  });
  const budget = setup.budget ?? vocabularyBudget(setup.seconds);
  const snapper = terms.length > 0 ? startVocabularySnapper(terms, { budget, ...(setup.onProgress ? { onProgress: setup.onProgress } : {}) }) : null;
  const pass: WordPass = async (recognised, passSignal) => {
    let passed: PassedWord[] = [...recognised];
    if (snapper) passed = await snapper.snap(passed, await lexicon.lookup(passed.map((w) => bareKey(w.text)), passSignal), passSignal);
    passed = applyReplacements(passed, options.replacements);
    return applyProfanity(passed, options.profanity);
  };
  return Object.assign(pass, { work: snapper?.work ?? null, ready: async () => snapper?.ready(), close: async () => snapper?.close() });
}
