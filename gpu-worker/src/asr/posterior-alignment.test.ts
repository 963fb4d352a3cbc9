import assert from "node:assert/strict";
import { test } from "node:test";
import type { Word } from "@caption/shared/api/transcript";
import { alignPosteriors, type Posterior } from "./posterior-alignment.ts";

// Words as -hypseg gives them and posteriors as -ctm prints them (seconds to two places, posteriors to three).
const words: Word[] = ["we", "will", "meet", "again", "on", "friday"].map((text, i) => ({ text, start: (i * 3) / 10, end: (i * 3 + 3) / 10 }));
const lines = (): Posterior[] => words.map((w, i) => ({ start: Number(w.start.toFixed(2)), word: w.text, confidence: 0.5 + i / 20 }));
const confidences = (aligned: { words: Word[] }) => aligned.words.map((w) => w.confidence);

test("every word takes the posterior of its own line", () => {
  const aligned = alignPosteriors(words, lines());
  assert.deepEqual(confidences(aligned), [0.5, 0.55, 0.6, 0.65, 0.7, 0.75]);
  assert.deepEqual(aligned.unmatched, []);
  assert.deepEqual(aligned.words.map(({ text, start, end }) => ({ text, start, end })), words, "only the confidence is added");
});

test("a posterior a hair above 1 (lattice rounding) is 1; further out, or not a number, it costs that word alone", () => {
  const posteriors = lines();
  posteriors[1]!.confidence = 1.001;
  posteriors[3]!.confidence = 1.5;
  posteriors[4]!.confidence = Number.NaN;
  const aligned = alignPosteriors(words, posteriors);
  assert.deepEqual(confidences(aligned), [0.5, 1, 0.6, undefined, undefined, 0.75]);
  assert.deepEqual(aligned.unmatched, [
    { index: 3, start: 0.9, reason: "posterior out of range", detail: 1.5 },
    { index: 4, start: 1.2, reason: "posterior out of range", detail: Number.NaN },
  ]);
});

test("a line missing, added, moved or naming another word costs only the words it concerns", () => {
  const posteriors = lines();
  const missing = alignPosteriors(words, posteriors.filter((_, i) => i !== 2));
  assert.deepEqual(confidences(missing), [0.5, 0.55, undefined, 0.65, 0.7, 0.75]);
  assert.deepEqual(missing.unmatched, [{ index: 2, start: 0.6, reason: "no posterior" }]);

  const added = alignPosteriors(words, [...posteriors.slice(0, 3), { start: 0.75, word: "uh", confidence: 0.2 }, ...posteriors.slice(3)]);
  assert.deepEqual(confidences(added), [0.5, 0.55, 0.6, 0.65, 0.7, 0.75]);

  const moved = posteriors.map((p, i) => (i === 4 ? { ...p, start: 1.4 } : p));
  assert.deepEqual(alignPosteriors(words, moved).unmatched, [{ index: 4, start: 1.2, reason: "posterior at another time", detail: 0.2 }]);

  const renamed = posteriors.map((p, i) => (i === 0 ? { ...p, word: "he" } : p));
  assert.deepEqual(confidences(alignPosteriors(words, renamed)), [undefined, 0.55, 0.6, 0.65, 0.7, 0.75]);

  // Out of order: one of the two swapped lines still lines up; the other's word says so.
  const swapped = [posteriors[1]!, posteriors[0]!, ...posteriors.slice(2)];
  const aligned = alignPosteriors(words, swapped);
  assert.equal(aligned.unmatched.length, 1);
  assert.equal(aligned.unmatched[0]!.reason, "posterior out of order");
  assert.equal(confidences(aligned).filter((c) => c !== undefined).length, 5);
});

test("a word said twice takes each line once, in order", () => {
  const twice: Word[] = [{ text: "on", start: 0, end: 0.2 }, { text: "and", start: 0.2, end: 0.4 }, { text: "on", start: 0.4, end: 0.6 }];
  const aligned = alignPosteriors(twice, [
    { start: 0, word: "on", confidence: 0.9 },
    { start: 0.4, word: "on", confidence: 0.3 },
  ]);
  assert.deepEqual(confidences(aligned), [0.9, undefined, 0.3]);
  assert.deepEqual(aligned.unmatched, [{ index: 1, start: 0.2, reason: "no posterior" }]);
});
