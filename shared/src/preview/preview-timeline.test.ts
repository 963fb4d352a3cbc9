import assert from "node:assert/strict";
import { test } from "node:test";
import { clipWindow, DEFAULT_PREVIEW_TEXT, previewWords, stillInstant, timelineSeconds, wordsOfText } from "./preview-timeline.ts";

test("text is timed at a steady pace from 0 s, whitespace of any kind parting words", () => {
  assert.deepEqual(wordsOfText(" Your\tcaptions\nhere "), [
    { text: "Your", start: 0, end: 0.4 },
    { text: "captions", start: 0.45, end: 0.85 },
    { text: "here", start: 0.9, end: 1.3 },
  ]);
});

test("a request's words are its own, its text's, or the sample sentence's", () => {
  const words = [{ text: "hi", start: 1, end: 2 }];
  assert.deepEqual(previewWords({ words }), words);
  assert.deepEqual(previewWords({ text: "hi" }), [{ text: "hi", start: 0, end: 0.4 }]);
  assert.equal(previewWords({}).map((w) => w.text).join(" "), DEFAULT_PREVIEW_TEXT);
});

test("the timeline runs a second past the last word, or as long as the background video", () => {
  const words = wordsOfText("one two three");
  assert.equal(timelineSeconds(words, undefined), 2.3);
  assert.equal(timelineSeconds(words, 12.5), 12.5);
});

test("a still shows its instant, or late in the middle word", () => {
  const words = wordsOfText("one two three four");
  assert.equal(stillInstant(words, 0.2), 0.2);
  // The second of four words: 0.45 + 0.8 × 0.4.
  assert.equal(stillInstant(words, undefined), 0.77);
});

test("a clip runs from its start until the words end, 5 s at most, or as long as asked", () => {
  const words = wordsOfText("a ".repeat(20));
  assert.deepEqual(clipWindow(words, {}), { start: 0, seconds: 5 });
  assert.deepEqual(clipWindow(words, { at: 7 }), { start: 7, seconds: words.at(-1)!.end - 7 });
  assert.deepEqual(clipWindow(words, { at: 1, duration: 2 }), { start: 1, seconds: 2 });
});
