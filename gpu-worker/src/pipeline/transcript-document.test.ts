import assert from "node:assert/strict";
import { test } from "node:test";
import { segmentsForWords } from "./transcript-document.ts";

const word = (text: string, start: number, end: number) => ({ text, start, end });

test("edited words take their source segment's place and text; empty segments go, segments stretch to their words", () => {
  const segments = [
    { start: 0.4, end: 2, text: "hello wrld" },
    { start: 3, end: 4, text: "uh" },
    { start: 5, end: 6.5, text: "by now" },
  ];
  const words = [word("Early", 0.1, 0.3), word("hello", 0.5, 0.9), word("world", 1, 1.4), word("goodbye", 5.1, 5.6), word("now.", 5.7, 6.8)];
  assert.deepEqual(segmentsForWords(segments, words), [
    { start: 0.1, end: 2, text: "Early hello world" },
    { start: 5, end: 6.8, text: "goodbye now." },
  ]);
});

test("words between segments belong to the one before; without source segments the words make one", () => {
  assert.deepEqual(segmentsForWords([{ start: 0, end: 1, text: "a" }, { start: 3, end: 4, text: "b" }], [word("a", 0.2, 0.5), word("added", 2, 2.5), word("b", 3.1, 3.5)]), [
    { start: 0, end: 2.5, text: "a added" },
    { start: 3, end: 4, text: "b" },
  ]);
  assert.deepEqual(segmentsForWords([], [word("only", 1, 1.5), word("words", 1.6, 2)]), [{ start: 1, end: 2, text: "only words" }]);
  assert.deepEqual(segmentsForWords([{ start: 0, end: 1, text: "a" }], []), []);
});
