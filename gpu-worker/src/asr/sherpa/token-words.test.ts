import assert from "node:assert/strict";
import { test } from "node:test";
import { tokensToWords } from "./token-words.ts";

const segment = { start: 10, end: 12 };

test("sentencepiece pieces merge into words with absolute times; a word ends where the next starts", () => {
  const words = tokensToWords({ tokens: ["▁hel", "lo", "▁wor", "ld", "."], timestamps: [0.2, 0.4, 0.9, 1.1, 1.3] }, segment);
  assert.deepEqual(words, [
    { text: "hello", start: 10.2, end: 10.9 },
    { text: "world.", start: 10.9, end: 12 },
  ]);
});

test("durations, when the model gives them, end a word before the next one starts", () => {
  const words = tokensToWords(
    { tokens: ["▁Hi", ",", "▁there"], timestamps: [0.1, 0.3, 0.8], durations: [0.2, 0.08, 0.4] },
    segment,
  );
  assert.deepEqual(words, [
    { text: "Hi,", start: 10.1, end: 10.38 },
    { text: "there", start: 10.8, end: 11.2 },
  ]);
});

test("control pieces are dropped and a lone word-start piece opens the next word", () => {
  const words = tokensToWords({ tokens: ["<|en|>", "▁", "ok", "<unk>", "▁", ","], timestamps: [0, 0.5, 0.6, 0.7, 0.8, 0.9] }, segment);
  assert.deepEqual(words, [{ text: "ok,", start: 10.5, end: 12 }]);
});

test("Chinese and Japanese characters are words of their own; punctuation joins them", () => {
  const words = tokensToWords({ tokens: ["你", "好", "。", "▁OK"], timestamps: [0.1, 0.3, 0.5, 0.7] }, segment);
  assert.deepEqual(
    words.map((w) => w.text),
    ["你", "好。", "OK"],
  );
});

test("times are clamped into the segment and never go backwards", () => {
  const words = tokensToWords({ tokens: ["▁a", "▁b", "▁c"], timestamps: [-0.5, 3, 2.5] }, segment);
  assert.deepEqual(words, [
    { text: "a", start: 10, end: 12 },
    { text: "b", start: 12, end: 12 },
    { text: "c", start: 12, end: 12 },
  ]);
});

test("without timestamps the words share the segment in proportion to their length", () => {
  const words = tokensToWords({ tokens: ["▁one", "▁three"], timestamps: [] }, segment);
  assert.deepEqual(words, [
    { text: "one", start: 10, end: 10.75 },
    { text: "three", start: 10.75, end: 12 },
  ]);
});

test("no tokens, no words", () => {
  assert.deepEqual(tokensToWords({ tokens: [], timestamps: [] }, segment), []);
});

test("a word's confidence is the geometric mean of its pieces' probabilities (ys_log_probs), punctuation included", () => {
  const words = tokensToWords(
    { tokens: ["▁hel", "lo", "▁wor", "ld", "."], timestamps: [0.2, 0.4, 0.9, 1.1, 1.3], logProbs: [Math.log(0.9), Math.log(0.4), -0.01, -0.02, -0.03] },
    segment,
  );
  assert.deepEqual(words.map((w) => w.confidence), [0.6, 0.98]);
  // Without log probabilities (CTC models give none) a word has no confidence at all, never a made-up one.
  assert.equal(tokensToWords({ tokens: ["▁ok"], timestamps: [0.1], logProbs: [] }, segment)[0]!.confidence, undefined);
});
