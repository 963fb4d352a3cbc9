import { VOWELS } from "./arpabet.ts";
import type { PronouncingDictionary } from "./cmu-dictionary.ts";
import type { BiasPlan } from "./pocketsphinx-bias.ts";

// The grammar of a segment's second pass (docs/vocabulary.md): the words the first pass heard, in order, where a run
// of them that could be a term (about as many phones) may be the term instead. The decoder chooses on the audio.

/** A run of heard words may be a term if its phones number from this share of the term's fewest… */
const MIN_PHONE_SHARE = 0.6;
/** …to this share of its most. */
const MAX_PHONE_SHARE = 1.5;
/** A term may stand for up to this many more words than it has. */
const EXTRA_WORDS = 2;
/** The most alternatives one grammar offers (the runs that share most phones with the term first): keeps its search small for any vocabulary. */
export const MAX_ALTERNATIVES = 128;
/** A term's transition probability, against 1 for a heard word: the audio must favour the term a little. */
const TERM_PROBABILITY = 0.5;

export interface TermGrammar {
  /** Sphinx FSG text. */
  fsg: string;
  /** Dictionary text: every word of the grammar with all its pronunciations. */
  dictionary: string;
  alternatives: number;
}

/** Phones counted, all vowels as one (recognisers confuse them most): a cheap likeness that needs no alignment. */
function phoneCounts(phones: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const phone of phones) counts.set(VOWELS.has(phone) ? "V" : phone, (counts.get(VOWELS.has(phone) ? "V" : phone) ?? 0) + 1);
  return counts;
}

/** The share of phones two sayings have in common (1: the same phones in some order). */
function likeness(a: ReadonlyMap<string, number>, aLength: number, b: ReadonlyMap<string, number>, bLength: number): number {
  let shared = 0;
  for (const [phone, n] of a) shared += Math.min(n, b.get(phone) ?? 0);
  return shared / Math.max(aLength, bLength, 1);
}

interface TermShape {
  words: string[];
  /** Its first saying. */
  phones: string[];
  minPhones: number;
  maxPhones: number;
}

/** The plan's terms as word lists, with the phone counts their sayings can have. */
function termShapes(plan: BiasPlan, dictionary: PronouncingDictionary): TermShape[] {
  const sayings = new Map(plan.words.map((w) => [w.key, w.pronunciations.length > 0 ? w.pronunciations : (dictionary.get(w.key) ?? [])]));
  return plan.terms.map((words) => {
    const lengths = words.map((word) => (sayings.get(word) ?? []).map((p) => p.length));
    const sum = (pick: (l: number[]) => number) => lengths.reduce((n, l) => n + (l.length > 0 ? pick(l) : 0), 0);
    const phones = words.flatMap((word) => sayings.get(word)?.[0] ?? []);
    return { words, phones, minPhones: sum((l) => Math.min(...l)), maxPhones: sum((l) => Math.max(...l)) };
  });
}

/**
 * The grammar for one segment, or null when no run of its words could be a term. `heard` are the first pass's words
 * as the dictionary spells them.
 */
export function termGrammar(heard: readonly string[], plan: BiasPlan, dictionary: PronouncingDictionary): TermGrammar | null {
  // Heard words come from the same dictionary; should one not, there is no grammar to build (the decoder would refuse it).
  if (heard.length === 0 || !heard.every((word) => dictionary.has(word))) return null;
  const phones = heard.map((word) => dictionary.get(word)![0]!);
  const candidates: { from: number; to: number; words: string[]; like: number }[] = [];
  for (const term of termShapes(plan, dictionary)) {
    const termCounts = phoneCounts(term.phones);
    for (let from = 0; from < heard.length; from++) {
      const run: string[] = [];
      for (let to = from + 1; to <= Math.min(heard.length, from + term.words.length + EXTRA_WORDS); to++) {
        run.push(...phones[to - 1]!);
        if (run.length > MAX_PHONE_SHARE * term.maxPhones) break;
        if (run.length < MIN_PHONE_SHARE * term.minPhones || heard.slice(from, to).join(" ") === term.words.join(" ")) continue;
        candidates.push({ from, to, words: term.words, like: likeness(termCounts, term.phones.length, phoneCounts(run), run.length) });
      }
    }
  }
  if (candidates.length === 0) return null;
  const chosen = candidates.sort((a, b) => b.like - a.like).slice(0, MAX_ALTERNATIVES);

  // States 0…n sit between the heard words; a term of several words passes through states of its own.
  const transitions = heard.map((word, i) => `TRANSITION ${i} ${i + 1} 1 ${word}`);
  let states = heard.length + 1;
  for (const { from, to, words } of chosen) {
    let at = from;
    words.forEach((word, i) => {
      const next = i === words.length - 1 ? to : states++;
      transitions.push(`TRANSITION ${at} ${next} ${i === 0 ? TERM_PROBABILITY : 1} ${word}`);
      at = next;
    });
  }
  const fsg = ["FSG_BEGIN terms", `NUM_STATES ${states}`, "START_STATE 0", `FINAL_STATE ${heard.length}`, ...transitions, "FSG_END", ""].join("\n");

  const made = new Map(plan.words.map((w) => [w.key, w.pronunciations]));
  const words = new Set([...heard, ...chosen.flatMap((c) => c.words)]);
  const lines = [...words].flatMap((word) => {
    const sayings = made.get(word)?.length ? made.get(word)! : (dictionary.get(word) ?? []);
    return sayings.map((phones, i) => `${word}${i === 0 ? "" : `(${i + 1})`} ${phones.join(" ")}`);
  });
  return { fsg, dictionary: `${lines.join("\n")}\n`, alternatives: chosen.length };
}
