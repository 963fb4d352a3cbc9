import assert from "node:assert/strict";
import { test } from "node:test";
import { normalizeWords, spokenPrefixWordErrorRate, wordErrorRate } from "./word-error-rate.ts";

test("identical text after normalisation scores 0", () => {
  assert.equal(wordErrorRate("Hello, World! It's fine.", "hello world  its FINE"), 0);
});

test("counts substitutions, deletions and insertions against the reference length", () => {
  assert.equal(wordErrorRate("the cat sat on the mat", "the cat sat on a mat"), 1 / 6);
  assert.equal(wordErrorRate("the cat sat on the mat", "the cat on the mat"), 1 / 6);
  assert.equal(wordErrorRate("the cat sat on the mat", "the black cat sat on the mat"), 1 / 6);
  assert.equal(wordErrorRate("a b c d", "x a b c d y"), 2 / 4);
  assert.equal(wordErrorRate("one two three", ""), 1);
  assert.equal(wordErrorRate("one two", "three four five six"), 4 / 2);
});

test("finds the cheapest alignment, not a positional comparison", () => {
  // Positionally every word differs; one deletion at the front explains it.
  assert.equal(wordErrorRate("so we went to the river", "we went to the river"), 1 / 6);
});

test("an empty reference scores 0 only against an empty hypothesis", () => {
  assert.equal(wordErrorRate("", ""), 0);
  assert.equal(wordErrorRate(" ... ", "words"), 1);
});

test("normalisation splits on punctuation and keeps letters of any script and digits", () => {
  assert.deepEqual(normalizeWords("Well-known café, 42 times; Naïve’s"), ["well", "known", "café", "42", "times", "naïves"]);
});

test("against speech cut off at an unknown word, the best-matching start of the reference counts", () => {
  const narration = "the cat sat on the mat and then the dog came in";
  assert.equal(spokenPrefixWordErrorRate(narration, "the cat sat on the mat"), 0);
  assert.equal(spokenPrefixWordErrorRate(narration, "the cat sat on a mat and"), 1 / 7);
  assert.equal(spokenPrefixWordErrorRate(narration, "a cat"), 1 / 2);
  assert.equal(spokenPrefixWordErrorRate(narration, ""), 0);
  assert.equal(spokenPrefixWordErrorRate(narration, "zebra"), 1);
});
