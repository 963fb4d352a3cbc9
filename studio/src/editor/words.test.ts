import assert from "node:assert/strict";
import { test } from "node:test";
import { insertAfter, mergeWithNext, nudge, removeWord, replaceText, splitWord, wordAt, type EditorWord } from "./words.ts";

const w = (text: string, start: number, end: number): EditorWord => ({ text, start, end, flags: [] });
const WORDS = [w("hello", 0, 0.5), w("new", 0.6, 0.9), w("yorke", 1, 1.6)];
const plain = (words: EditorWord[] | { problem: string }): (string | number)[][] => {
  if ("problem" in words) throw new Error(words.problem);
  return words.map(({ text, start, end }) => [text, start, end]);
};

test("new text replaces a word; text with spaces becomes several words sharing its time by length; blank text is refused", () => {
  assert.deepEqual(plain(replaceText(WORDS, 2, "York")), [["hello", 0, 0.5], ["new", 0.6, 0.9], ["York", 1, 1.6]]);
  assert.deepEqual(plain(replaceText(WORDS, 0, "oh hi")), [["oh", 0, 0.25], ["hi", 0.25, 0.5], ["new", 0.6, 0.9], ["yorke", 1, 1.6]]);
  assert.deepEqual(replaceText(WORDS, 0, "  "), { problem: "A word cannot be blank: use Delete word to remove it" });
});

test("delete, insert, split and merge keep starts in order and ends after starts", () => {
  assert.deepEqual(plain(removeWord(WORDS, 1)).map((word) => word[0]), ["hello", "yorke"]);
  assert.deepEqual(plain(insertAfter(WORDS, 0, "there", 1.6))[1], ["there", 0.5, 0.6]);
  assert.deepEqual(plain(insertAfter(WORDS, 2, "end", 1.7))[3], ["end", 1.6, 1.7]);
  // Overlapping neighbours: the new word starts no later than the next one.
  assert.deepEqual(plain(insertAfter([w("a", 0, 1), w("b", 0.5, 1.2)], 0, "x", 2))[1], ["x", 0.5, 0.5]);
  assert.deepEqual(plain(splitWord(WORDS, 2)), [["hello", 0, 0.5], ["new", 0.6, 0.9], ["yor", 1, 1.36], ["ke", 1.36, 1.6]]);
  assert.deepEqual(plain(mergeWithNext(WORDS, 1)), [["hello", 0, 0.5], ["new yorke", 0.6, 1.6]]);
  assert.deepEqual(plain(mergeWithNext(WORDS, 2)), plain(WORDS));
});

test("a nudge moves one edge and stops at the neighbours' starts, the word's other edge and the video's end", () => {
  assert.deepEqual(plain(nudge(WORDS, 1, "start", -0.05, 2))[1], ["new", 0.55, 0.9]);
  assert.deepEqual(plain(nudge(WORDS, 1, "start", -5, 2))[1], ["new", 0, 0.9]);
  assert.deepEqual(plain(nudge(WORDS, 1, "start", 5, 2))[1], ["new", 0.9, 0.9]);
  assert.deepEqual(plain(nudge(WORDS, 2, "end", 5, 1.7))[2], ["yorke", 1, 1.7]);
  assert.deepEqual(plain(nudge(WORDS, 2, "end", -5, 1.7))[2], ["yorke", 1, 1]);
});

test("the word being spoken", () => {
  assert.deepEqual([0, 0.55, 0.7, 1.2, 2].map((t) => wordAt(WORDS, t)), [0, -1, 1, 2, -1]);
});
