import { execa } from "execa";
import { fromFlite, fromIpa } from "./arpabet.ts";

// Pronunciations for words no dictionary holds, from two grapheme-to-phoneme programs: flite's `t2p` (CMU
// letter-to-sound rules) and espeak-ng (its own English rules, in IPA). Each voice says names the way one of
// them does more often than the other, so both are offered to the recogniser (docs/vocabulary.md).

export const T2P_BINARY = "/usr/bin/t2p";
export const ESPEAK_BINARY = "/usr/bin/espeak-ng";
const TIMEOUT_MS = 10_000;
const CACHE_LIMIT = 10_000;

/** What the programs can read: a Latin-script word (letters, digits, apostrophes, a few joiners). */
const PRONOUNCEABLE = /^(?=.*[\p{L}\p{N}])[\p{Script=Latin}\p{N}'’.&+-]+$/u;
export const isPronounceable = (word: string): boolean => PRONOUNCEABLE.test(word);

export interface GraphemeToPhonemeOptions {
  t2p?: string;
  espeak?: string;
  signal?: AbortSignal;
}

const cache = new Map<string, string[][]>();

/**
 * ARPAbet pronunciations of each word (distinct variants, flite's first), an empty list for a word neither
 * program can pronounce. Results are cached for the worker's life.
 */
export async function pronounce(words: readonly string[], options: GraphemeToPhonemeOptions = {}): Promise<Map<string, string[][]>> {
  const result = new Map<string, string[][]>();
  const todo = [...new Set(words)].filter((word) => {
    const known = cache.get(word);
    if (known) result.set(word, known);
    else if (!isPronounceable(word)) result.set(word, []);
    return known === undefined && isPronounceable(word);
  });
  if (todo.length === 0) return result;
  const [flite, espeak] = await Promise.all([
    Promise.all(todo.map((word) => t2p(word, options))),
    espeakWords(todo, options),
  ]);
  todo.forEach((word, i) => {
    const variants = new Map<string, string[]>();
    for (const phones of [flite[i], espeak[i]]) if (phones) variants.set(phones.join(" "), phones);
    const pronunciations = [...variants.values()];
    result.set(word, pronunciations);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(word, pronunciations);
  });
  return result;
}

// A word is the customer's text and may start with "-" (a term such as "-fnotes.txt"): it must reach each program as
// text, never as an option. espeak-ng takes "--" as the end of its options (without it, `-f` read a file). t2p parses
// its arguments with flite's cst_args, which takes any argument starting with "-" as an option and knows no "--" (it
// prints its usage); flite's tokenizer skips leading white space, so a space before the word keeps it a word.
async function t2p(word: string, options: GraphemeToPhonemeOptions): Promise<string[] | null> {
  const run = await execa(options.t2p ?? T2P_BINARY, [` ${word}`], { reject: false, timeout: TIMEOUT_MS, cancelSignal: options.signal, stdin: "ignore" });
  if (run.exitCode !== 0 || typeof run.stdout !== "string") return null;
  return fromFlite(run.stdout.split(/\s+/u).filter((phone) => phone !== "" && phone !== "pau"));
}

/** One espeak-ng run for all the words: each comes back as one space-separated group of `_`-joined phonemes. */
async function espeakWords(words: readonly string[], options: GraphemeToPhonemeOptions): Promise<(string[] | null)[]> {
  const run = await execa(options.espeak ?? ESPEAK_BINARY, ["-q", "-v", "en-us", "--ipa", "--sep=_", "--", words.join(" ")], {
    reject: false,
    timeout: TIMEOUT_MS,
    cancelSignal: options.signal,
    stdin: "ignore",
  });
  if (run.exitCode !== 0 || typeof run.stdout !== "string") return words.map(() => null);
  const groups = run.stdout.trim().split(/\s+/u);
  // espeak-ng may say a word as several (digits, abbreviations): then ask for each word alone.
  if (groups.length !== words.length) {
    return words.length === 1 ? [null] : (await Promise.all(words.map((word) => espeakWords([word], options)))).flat();
  }
  return groups.map((group) => fromIpa(group.split("_")));
}
