import { VOWELS } from "../asr/vocabulary/arpabet.ts";
import { bareKey, replaceSpan, type PassedWord } from "./passed-word.ts";

/** Word sequences this close to a term (phonetic distance, docs/vocabulary.md) become the term. */
export const SNAP_DISTANCE = 0.4;
/** Terms shorter than this many phones are matched by spelling only: short sounds are too alike. */
export const MIN_SNAP_PHONES = 4;
/** How much farther a longer match may be than the closest and still win. */
const LONGER_SLACK = 0.1;
/** A term may replace up to this many more words than it has (a name heard as several short words). */
const EXTRA_WORDS = 2;
/** Substituting one vowel for another, or a consonant for its voiced or voiceless twin, costs half: recognisers confuse those most. */
const NEAR = 0.5;
const TWINS = new Set(["P B", "T D", "K G", "F V", "S Z", "SH ZH", "CH JH", "TH DH"].flatMap((pair) => [pair, pair.split(" ").reverse().join(" ")]));
const near = (x: string, y: string) => (VOWELS.has(x) && VOWELS.has(y)) || TWINS.has(`${x} ${y}`);

export interface SnapTerm {
  /** As the customer wrote it. */
  text: string;
  words: string[];
  /** Its pronunciations (whole term), ARPAbet. */
  pronunciations: string[][];
}

/**
 * Edit distance from what was heard (`a`) to a term's pronunciation (`b`), over the term's length: 0 the same,
 * 1 or more nothing alike. Substitutions of near phones cost half.
 */
export function phoneticDistance(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const x = a[i - 1]!;
      const y = b[j - 1]!;
      const substitute = x === y ? 0 : near(x, y) ? NEAR : 1;
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + substitute));
    }
    previous = current;
  }
  return previous[b.length]! / b.length;
}

/** Every way to say a run of words: one pronunciation per word, at most a few combinations. */
function sayings(keys: readonly string[], phones: ReadonlyMap<string, string[][]>): string[][] {
  let all: string[][] = [[]];
  for (const key of keys) {
    const variants = phones.get(key) ?? [];
    if (variants.length === 0) return [];
    all = all.flatMap((head) => variants.slice(0, 2).map((v) => [...head, ...v])).slice(0, 8);
  }
  return all;
}

/**
 * Replaces word sequences that are spelt like a term (whatever the case and punctuation) or sound like one
 * (phonetic distance at most SNAP_DISTANCE, terms of MIN_SNAP_PHONES phones or more) by the term, left to right:
 * at each word the closest match, or a longer one within LONGER_SLACK of it. Matched words are marked `vocabulary`; changed ones keep their original.
 */
export function snapToTerms(words: readonly PassedWord[], terms: readonly SnapTerm[], phones: ReadonlyMap<string, string[][]>): PassedWord[] {
  if (terms.length === 0) return [...words];
  const out: PassedWord[] = [];
  for (let i = 0; i < words.length; ) {
    const matches: { term: SnapTerm; length: number; distance: number }[] = [];
    for (const term of terms) {
      for (let length = 1; length <= term.words.length + EXTRA_WORDS && i + length <= words.length; length++) {
        const keys = words.slice(i, i + length).map((w) => bareKey(w.text));
        let distance = keys.join(" ") === term.words.join(" ") ? 0 : Infinity;
        if (distance > 0 && term.pronunciations.some((p) => p.length >= MIN_SNAP_PHONES)) {
          for (const said of sayings(keys, phones)) for (const p of term.pronunciations) distance = Math.min(distance, phoneticDistance(said, p));
        }
        if (distance <= SNAP_DISTANCE) matches.push({ term, length, distance });
      }
    }
    // The closest match, or a longer one nearly as close: a name heard as several words should take them all.
    const closest = Math.min(...matches.map((m) => m.distance));
    const best = matches.filter((m) => m.distance <= closest + LONGER_SLACK).sort((a, b) => b.length - a.length || a.distance - b.distance)[0];
    if (best === undefined) {
      out.push(words[i]!);
      i++;
      continue;
    }
    out.push(...replaceSpan(words.slice(i, i + best.length), best.term.text.split(/\s+/u), { vocabulary: true }));
    i += best.length;
  }
  return out;
}
