import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { bareKey, replaceSpan, type PassedWord } from "./passed-word.ts";
import { phoneticDistance } from "./phonetic-distance.ts";
import { MIN_SNAP_PHONES, SNAP_DISTANCE, snapToTerms, type SnapTerm } from "./vocabulary-snap.ts";

// The post-pass as first written: every term, every run of words, every pair of pronunciations, every distance
// in full. The bounded pass must snap exactly as it did.
function unboundedSnap(words: readonly PassedWord[], terms: readonly SnapTerm[], phones: ReadonlyMap<string, string[][]>): PassedWord[] {
  const sayings = (keys: readonly string[]) => {
    let all: string[][] = [[]];
    for (const key of keys) {
      const variants = phones.get(key) ?? [];
      if (variants.length === 0) return [];
      all = all.flatMap((head) => variants.slice(0, 2).map((v) => [...head, ...v])).slice(0, 8);
    }
    return all;
  };
  const out: PassedWord[] = [];
  for (let i = 0; i < words.length; ) {
    const matches: { term: SnapTerm; length: number; distance: number }[] = [];
    for (const term of terms) {
      for (let length = 1; length <= term.words.length + 2 && i + length <= words.length; length++) {
        const keys = words.slice(i, i + length).map((w) => bareKey(w.text));
        let distance = keys.join(" ") === term.words.join(" ") ? 0 : Infinity;
        if (distance > 0 && term.pronunciations.some((p) => p.length >= MIN_SNAP_PHONES)) {
          for (const said of sayings(keys)) for (const p of term.pronunciations) distance = Math.min(distance, phoneticDistance(said, p));
        }
        if (distance <= SNAP_DISTANCE) matches.push({ term, length, distance });
      }
    }
    const closest = Math.min(...matches.map((m) => m.distance));
    const best = matches.filter((m) => m.distance <= closest + 0.1).sort((a, b) => b.length - a.length || a.distance - b.distance)[0];
    if (best === undefined) out.push(words[i++]!);
    else {
      out.push(...replaceSpan(words.slice(i, i + best.length), best.term.text.split(/\s+/u), { vocabulary: true }));
      i += best.length;
    }
  }
  return out;
}

const spoken = (keys: readonly string[]): PassedWord[] => keys.map((text, i) => ({ text, start: i, end: i + 0.9, confidence: 0.9 }));

/** A small world of words: few phones, so that many runs come within the distance and many do not. */
const world = fc
  .record({
    lexicon: fc.array(fc.array(fc.array(fc.constantFrom("AA", "AE", "T", "D", "K", "S", "N"), { minLength: 1, maxLength: 5 }), { minLength: 0, maxLength: 3 }), {
      minLength: 6,
      maxLength: 6,
    }),
    terms: fc.array(fc.array(fc.nat(7), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
    heard: fc.array(fc.nat(7), { minLength: 1, maxLength: 14 }),
  })
  .map(({ lexicon, terms, heard }) => {
    // Words 6 and 7 are in no lexicon: nothing can say them.
    const names = ["kay", "tad", "sand", "at", "nat", "dust", "xq", "zz"];
    const phones = new Map(lexicon.map((variants, w) => [names[w]!, variants]));
    const snapTerms = terms.map((t) => {
      const words = t.map((w) => names[w]!);
      let pronunciations: string[][] = [[]];
      for (const w of words) pronunciations = pronunciations.flatMap((head) => (phones.get(w) ?? []).slice(0, 2).map((v) => [...head, ...v])).slice(0, 8);
      return { text: words.map((w) => w.toUpperCase()).join(" "), words, pronunciations: pronunciations.filter((p) => p.length > 0) };
    });
    return { phones, terms: snapTerms, words: spoken(heard.map((w) => names[w]!)) };
  });

test("bounded, the post-pass snaps exactly as the unbounded one did", () => {
  let snapped = 0;
  fc.assert(
    fc.property(world, ({ phones, terms, words }) => {
      const expected = unboundedSnap(words, terms, phones);
      const outcome = snapToTerms(words, terms, phones);
      assert.deepEqual(outcome.words, expected);
      assert.equal(outcome.spent, false);
      if (expected.some((w) => w.vocabulary)) snapped++;
    }),
    { numRuns: 1500 },
  );
  assert.ok(snapped > 250, `only ${snapped} of 1500 worlds snapped anything: the check would prove little`);
});

// The term: 25 words of one letter, each said in several phones.
const LETTERS = new Map([
  ["a", [["AH"], ["EY"]]],
  ["w", [["D", "AH", "B", "AH", "L", "Y", "UW"]]],
]);
const worstTerm = (n: number): SnapTerm => {
  const words = Array.from({ length: 25 }, (_, k) => ((n >> k % 10) & 1 ? "a" : "w"));
  let pronunciations: string[][] = [[]];
  for (const w of words) pronunciations = pronunciations.flatMap((head) => LETTERS.get(w)!.map((v) => [...head, ...v])).slice(0, 8);
  return { text: `${n}: ${words.join(" ")}`, words, pronunciations };
};
const worstWords = spoken(Array.from({ length: 60 }, (_, i) => (i % 7 === 3 ? "a" : "w")));

test("the work budget caps a pass: counted in units, never overdrawn; once spent, spelling still matches", () => {
  const terms = Array.from({ length: 10 }, (_, n) => worstTerm(n * 37));
  const unlimited = snapToTerms(worstWords, terms, LETTERS);
  assert.equal(unlimited.spent, false);
  const budget = Math.floor(unlimited.used / 10);
  const capped = snapToTerms(worstWords, terms, LETTERS, budget);
  assert.equal(capped.spent, true);
  assert.ok(capped.used <= budget, `${capped.used} units of ${budget}`);
  assert.ok(capped.used > budget * 0.9, `${capped.used} units of ${budget}: the budget is used, not given up early`);

  // A term spelt out after the budget is gone is still found; a near spelling is not (that takes sound).
  const kubernetes: SnapTerm = { text: "Kubernetes", words: ["kubernetes"], pronunciations: [["K", "UW", "B", "ER", "N", "EH", "T", "IY", "Z"]] };
  const tail = spoken([...worstWords.map((w) => w.text), "kubernetes", "cooper", "nettys"]);
  const phones = new Map([...LETTERS, ["cooper", [["K", "UW", "P", "ER"]]], ["nettys", [["N", "EH", "T", "IY", "Z"]]]]);
  const late = snapToTerms(tail, [...terms, kubernetes], phones, budget);
  assert.equal(late.spent, true);
  assert.deepEqual(late.words.slice(-3).map((w) => [w.text, w.vocabulary ?? false]), [["Kubernetes", true], ["cooper", false], ["nettys", false]]);
  const ample = snapToTerms(tail, [...terms, kubernetes], phones);
  assert.deepEqual(ample.words.slice(-2).map((w) => w.text), ["Kubernetes", "Kubernetes"], "with budget left, the sound matches");
});

test("runs too long or too short in phones to come within the distance are not compared at all", () => {
  const kubernetes: SnapTerm = { text: "Kubernetes", words: ["kubernetes"], pronunciations: [["K", "UW", "B", "ER", "N", "EH", "T", "IY", "Z"]] };
  // Each word 20 phones long: no run of them is within 0.4 × 9 phones of the term.
  const long = Array.from({ length: 20 }, () => "S");
  const heard = spoken(Array.from({ length: 30 }, () => "ssss"));
  const outcome = snapToTerms(heard, [kubernetes], new Map([["ssss", [long]]]));
  // Each word's one way of saying it is built (20 units each); no pair of pronunciations is compared.
  assert.equal(outcome.used, 30 * 20);
  assert.deepEqual(outcome.words, heard);
});
