import type { ProfanityMode, Replacements } from "@caption/shared/api/custom-words";
import type { Word } from "@caption/shared/api/transcript";
import { termWords } from "../asr/vocabulary/pocketsphinx-bias.ts";
import type { PhoneticLexicon } from "../asr/vocabulary/phonetic-lexicon.ts";
import { bareKey, type PassedWord } from "./passed-word.ts";
import { applyProfanity } from "./profanity.ts";
import { applyReplacements } from "./replacements.ts";
import { snapToTerms, type SnapTerm } from "./vocabulary-snap.ts";

export interface WordPassOptions {
  vocabulary: readonly string[];
  replacements: Replacements;
  profanity: ProfanityMode;
}

/** Recognised words → the words a job shows and keeps: snapped to vocabulary terms, replaced, masked (in that order). */
export type WordPass = (words: readonly Word[], signal?: AbortSignal) => Promise<PassedWord[]>;

export const isNoop = (options: WordPassOptions): boolean => options.vocabulary.length === 0 && Object.keys(options.replacements).length === 0 && options.profanity === "keep";

/** Prepares the pass: the terms' pronunciations are looked up once. */
export async function createWordPass(options: WordPassOptions, lexicon: PhoneticLexicon, signal?: AbortSignal): Promise<WordPass> {
  const words = options.vocabulary.map(termWords);
  const phones = await lexicon.lookup(words.flat(), signal);
  const terms: SnapTerm[] = options.vocabulary.map((text, t) => {
    let pronunciations: string[][] = [[]];
    for (const word of words[t]!) {
      pronunciations = pronunciations.flatMap((head) => (phones.get(word) ?? []).slice(0, 2).map((v) => [...head, ...v])).slice(0, 8);
    }
    return { text, words: words[t]!.map(bareKey), pronunciations: pronunciations.filter((p) => p.length > 0) };
  });
  return async (recognised, passSignal) => {
    let passed: PassedWord[] = [...recognised];
    if (terms.length > 0) passed = snapToTerms(passed, terms, await lexicon.lookup(passed.map((w) => bareKey(w.text)), passSignal));
    passed = applyReplacements(passed, options.replacements);
    return applyProfanity(passed, options.profanity);
  };
}
