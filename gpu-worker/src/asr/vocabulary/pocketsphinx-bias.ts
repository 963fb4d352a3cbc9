import type { PronouncingDictionary } from "./cmu-dictionary.ts";
import { pronounce, type GraphemeToPhonemeOptions } from "./grapheme-to-phoneme.ts";

/** A word of a term as the second pass gets it: its dictionary spelling, and pronunciations to add (none when the dictionary has it). */
export interface BiasWord {
  key: string;
  pronunciations: string[][];
}

export interface BiasPlan {
  words: BiasWord[];
  /** The terms the second pass looks for, as their words. */
  terms: string[][];
  /** Terms left to the post-pass, and why. */
  notBiased: { term: string; reason: string }[];
}

/** Why a term with these words is left to the post-pass. */
export const unpronounced = (words: readonly string[]): string =>
  `no pronunciation could be made for ${words.map((w) => JSON.stringify(w)).join(", ")} (grapheme-to-phoneme reads Latin-script English words)`;

/** A term's words as pocketsphinx's dictionary spells words: lower case, split at spaces. */
export const termWords = (term: string): string[] => term.toLowerCase().split(/\s+/u).filter(Boolean);

/**
 * The terms the second pass offers the decoder, and their words' pronunciations: those pocketsphinx's dictionary
 * holds keep its own; the others get the grapheme-to-phoneme step's. A term with a word that cannot be pronounced
 * is not offered at all (the post-pass still looks for it).
 */
export async function planBias(terms: readonly string[], dictionary: PronouncingDictionary, options: GraphemeToPhonemeOptions = {}): Promise<BiasPlan> {
  const unknown = [...new Set(terms.flatMap(termWords))].filter((word) => !dictionary.has(word));
  const made = await pronounce(unknown, options);
  const words = new Map<string, BiasWord>();
  const biased = new Map<string, string[]>();
  const notBiased: BiasPlan["notBiased"] = [];
  for (const term of terms) {
    const parts = termWords(term);
    const silent = parts.filter((word) => !dictionary.has(word) && (made.get(word) ?? []).length === 0);
    if (parts.length === 0 || silent.length > 0) {
      notBiased.push({ term, reason: unpronounced(silent) });
      continue;
    }
    for (const word of parts) words.set(word, { key: word, pronunciations: dictionary.has(word) ? [] : made.get(word)! });
    biased.set(parts.join(" "), parts);
  }
  return { words: [...words.values()], terms: [...biased.values()], notBiased };
}
