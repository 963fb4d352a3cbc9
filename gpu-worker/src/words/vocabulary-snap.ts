import { bareKey, replaceSpan, type PassedWord } from "./passed-word.ts";
import { boundedDistance, halfPhonesWithin, phoneCodes, WorkMeter, type PhoneCodes } from "./phonetic-distance.ts";

/** Word sequences this close to a term (phonetic distance, docs/vocabulary.md) become the term. */
export const SNAP_DISTANCE = 0.4;
/** Terms shorter than this many phones are matched by spelling only: short sounds are too alike. */
export const MIN_SNAP_PHONES = 4;
/** How much farther a longer match may be than the closest and still win. */
const LONGER_SLACK = 0.1;
/** A term may replace up to this many more words than it has (a name heard as several short words). */
const EXTRA_WORDS = 2;
/** Pronunciations tried per word, and ways to say a run of words (or a term) at most. */
const VARIANTS_PER_WORD = 2;
const MAX_SAYINGS = 8;

export interface SnapTerm {
  /** As the customer wrote it. */
  text: string;
  words: string[];
  /** Its pronunciations (whole term), ARPAbet. */
  pronunciations: string[][];
}

/** What a snapping pass did: the words, and the work units it spent of its budget. */
export interface SnapOutcome {
  words: PassedWord[];
  used: number;
  /** The budget ran out: from there on, words were matched by spelling only. */
  spent: boolean;
}

/** Every way to say a run of words, one pronunciation per word: `heads` (the run one word shorter) followed by the next word's. */
export function sayingsAfter<T extends ArrayLike<unknown>>(heads: readonly T[], variants: readonly T[], join: (head: T, tail: T) => T): T[] {
  return heads.flatMap((head) => variants.slice(0, VARIANTS_PER_WORD).map((tail) => join(head, tail))).slice(0, MAX_SAYINGS);
}

const joinCodes = (head: Uint16Array, tail: Uint16Array): Uint16Array => {
  const both = new Uint16Array(head.length + tail.length);
  both.set(head);
  both.set(tail, head.length);
  return both;
};

interface PreparedTerm {
  term: SnapTerm;
  key: string;
  /** Its pronunciations, with the largest distance (half phones) that still snaps. */
  pronunciations: { codes: Uint16Array; within: number }[];
  phonetic: boolean;
  /** No run of words with fewer or more phones than these can come within SNAP_DISTANCE of a pronunciation. */
  fewestPhones: number;
  mostPhones: number;
}

function prepare(term: SnapTerm, codes: PhoneCodes): PreparedTerm {
  const pronunciations = term.pronunciations.map((p) => ({ codes: codes.encode(p), within: halfPhonesWithin(SNAP_DISTANCE, p.length) }));
  const slack = (p: { codes: Uint16Array; within: number }) => Math.floor(p.within / 2);
  return {
    term,
    key: term.words.join(" "),
    pronunciations,
    phonetic: term.pronunciations.some((p) => p.length >= MIN_SNAP_PHONES),
    fewestPhones: Math.min(...pronunciations.map((p) => p.codes.length - slack(p))),
    mostPhones: Math.max(...pronunciations.map((p) => p.codes.length + slack(p))),
  };
}

/** The runs of words starting at one position: their spelling and every way to say them, worked out as far as asked. */
function runsFrom(start: number, keys: readonly string[], variants: readonly Uint16Array[][], meter: WorkMeter) {
  const spellings: string[] = [];
  const sayings: Uint16Array[][] = [[new Uint16Array(0)]];
  return {
    spelling(length: number): string {
      for (let k = spellings.length + 1; k <= length; k++) spellings.push(k === 1 ? keys[start]! : `${spellings[k - 2]} ${keys[start + k - 1]}`);
      return spellings[length - 1]!;
    },
    /** null once the meter has run out. */
    sayings(length: number): Uint16Array[] | null {
      for (let k = sayings.length; k <= length; k++) {
        const next = sayingsAfter(sayings[k - 1]!, variants[start + k - 1]!, joinCodes);
        if (!meter.take(next.reduce((sum, s) => sum + s.length, 0))) return null;
        sayings.push(next);
      }
      return sayings[length]!;
    },
  };
}

/**
 * The distance of the closest of `term`'s pronunciations to a way of saying the run of `length` words, or
 * Infinity when none comes within SNAP_DISTANCE; "beyond" when no longer run can either (too many phones, a word
 * nothing can pronounce). Stops where the budget runs out.
 */
function closest(term: PreparedTerm, runs: ReturnType<typeof runsFrom>, length: number, codes: PhoneCodes, meter: WorkMeter): number | "beyond" {
  const sayings = runs.sayings(length);
  if (sayings === null || sayings.length === 0) return "beyond";
  const lengths = sayings.map((s) => s.length);
  if (Math.min(...lengths) > term.mostPhones) return "beyond";
  if (Math.max(...lengths) < term.fewestPhones) return Infinity;
  let distance = Infinity;
  for (const said of sayings) {
    for (const p of term.pronunciations) {
      // Only a closer pair changes the answer: the limit tightens as pairs come closer.
      const limit = Math.min(p.within, halfPhonesWithin(distance, p.codes.length));
      const half = boundedDistance(said, p.codes, limit, codes, meter);
      if (half !== Infinity) distance = Math.min(distance, half / 2 / p.codes.length);
      if (distance === 0 || meter.spent) return distance;
    }
  }
  return distance;
}

/**
 * Replaces word sequences that are spelt like a term (whatever the case and punctuation) or sound like one
 * (phonetic distance at most SNAP_DISTANCE, terms of MIN_SNAP_PHONES phones or more) by the term, left to right:
 * at each word the closest match, or a longer one within LONGER_SLACK of it. Matched words are marked `vocabulary`; changed ones keep their original.
 * Comparing sounds spends work units of `budget` (phonetic-distance.ts WorkMeter); once it is spent, the rest is
 * matched by spelling only. `onWord` hears the units spent after each word.
 */
export function snapToTerms(
  words: readonly PassedWord[],
  terms: readonly SnapTerm[],
  phones: ReadonlyMap<string, string[][]>,
  budget = Infinity,
  onWord?: (used: number) => void,
): SnapOutcome {
  const meter = new WorkMeter(budget);
  if (terms.length === 0) return { words: [...words], used: 0, spent: false };
  const keys = words.map((w) => bareKey(w.text));
  const heard = keys.map((key) => (phones.get(key) ?? []).slice(0, VARIANTS_PER_WORD));
  const codes = phoneCodes([...heard.flat(), ...terms.flatMap((t) => t.pronunciations)]);
  const variants = heard.map((vs) => vs.map((v) => codes.encode(v)));
  const prepared = terms.map((term) => prepare(term, codes));
  const out: PassedWord[] = [];
  for (let i = 0; i < words.length; ) {
    const runs = runsFrom(i, keys, variants, meter);
    const matches: { term: SnapTerm; length: number; distance: number }[] = [];
    for (const term of prepared) {
      let phonetic = term.phonetic && !meter.spent;
      for (let length = 1; length <= term.term.words.length + EXTRA_WORDS && i + length <= words.length; length++) {
        // Past what sound can match, only the spelling of a run as long as the term is left to look at.
        if (!phonetic && length !== term.term.words.length) {
          if (length > term.term.words.length) break;
          continue;
        }
        let distance = runs.spelling(length) === term.key ? 0 : Infinity;
        if (distance > 0 && phonetic && !meter.spent) {
          const found = closest(term, runs, length, codes, meter);
          if (found !== "beyond") distance = found;
          if (found === "beyond" || meter.spent) phonetic = false;
        }
        if (distance <= SNAP_DISTANCE) matches.push({ term: term.term, length, distance });
      }
    }
    onWord?.(meter.used);
    // The closest match, or a longer one nearly as close: a name heard as several words should take them all.
    const nearest = Math.min(...matches.map((m) => m.distance));
    const best = matches.filter((m) => m.distance <= nearest + LONGER_SLACK).sort((a, b) => b.length - a.length || a.distance - b.distance)[0];
    if (best === undefined) {
      out.push(words[i]!);
      i++;
      continue;
    }
    out.push(...replaceSpan(words.slice(i, i + best.length), best.term.text.split(/\s+/u), { vocabulary: true }));
    i += best.length;
  }
  return { words: out, used: meter.used, spent: meter.spent };
}
