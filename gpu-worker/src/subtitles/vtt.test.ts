import assert from "node:assert/strict";
import { test } from "node:test";
import { parseWebVtt } from "../testing/webvtt.ts";
import type { Cue } from "../render/cue-builder.ts";
import { cuesToSrt, parseSrt } from "./srt.ts";
import { cuesToVtt, formatVttTime } from "./vtt.ts";

/** A cue from lines of [text, start] words. */
const cue = (start: number, end: number, ...lines: [string, number][][]): Cue => ({
  start,
  end,
  lines: lines.map((words) => ({ words: words.map(([text, wordStart]) => ({ text, start: wordStart, end: wordStart + 0.1 })) })),
});

for (const [ms, expected] of [
  [0, "00:00:00.000"],
  [1235, "00:00:01.235"],
  [3723004, "01:02:03.004"],
] as const) {
  test(`formatVttTime(${ms}) is ${expected}`, () => assert.equal(formatVttTime(ms), expected));
}

test("cuesToVtt writes the SRT's cues with a timing tag before every later word", () => {
  const cues = [cue(0.5, 1.25, [["Hello", 0.5], ["there", 0.8]], [["general", 1], ["Kenobi", 1.1]]), cue(2, 3.5, [["¿Qué", 2], ["tal?", 2.4]])];
  const vtt = cuesToVtt(cues);
  assert.equal(
    vtt,
    "WEBVTT\n\n1\n00:00:00.500 --> 00:00:01.250\nHello <00:00:00.800>there\n<00:00:01.000>general <00:00:01.100>Kenobi\n\n" +
      "2\n00:00:02.000 --> 00:00:03.500\n¿Qué <00:00:02.400>tal?\n",
  );
  const parsed = parseWebVtt(vtt);
  const srt = parseSrt(cuesToSrt(cues));
  assert.deepEqual(
    parsed.map((c) => ({ start: c.start, end: c.end, text: c.text })),
    srt.map((entry) => ({ start: entry.start, end: entry.end, text: entry.text })),
  );
  assert.deepEqual(parsed[0]!.timestamps, [0.8, 1, 1.1]);
});

test("markup characters are escaped and come back as text", () => {
  const [parsed] = parseWebVtt(cuesToVtt([cue(0, 1, [["<b>R&D", 0], ["-->", 0.5]])]));
  assert.equal(parsed!.text, "<b>R&D -->");
});

test("tags stay strictly inside the cue and increasing: words that start together, at the start or at the end get none", () => {
  const vtt = cuesToVtt([cue(1, 2, [["a", 1], ["b", 1.5], ["c", 1.5], ["d", 2]])]);
  assert.match(vtt, /\na b <00:00:01\.500>c d\n|\na <00:00:01\.500>b c d\n/u);
  assert.deepEqual(parseWebVtt(vtt)[0]!.timestamps, [1.5]);
});

test("a zero-length cue lasts a millisecond, so the file stays valid and keeps every word", () => {
  const [parsed] = parseWebVtt(cuesToVtt([cue(4, 4, [["blink", 4]])]));
  assert.equal(parsed!.start, 4);
  assert.equal(parsed!.end, 4.001);
  assert.equal(parsed!.text, "blink");
});

test("no cues give a header alone, which parses", () => {
  assert.equal(cuesToVtt([]), "WEBVTT\n");
  assert.deepEqual(parseWebVtt(cuesToVtt([])), []);
});

test("the parser is strict: a tag outside its cue or a missing header is an error", () => {
  assert.throws(() => parseWebVtt("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\na <00:00:03.000>b\n"), /invalid WebVTT/);
  assert.throws(() => parseWebVtt("1\n00:00:01.000 --> 00:00:02.000\na\n"), /invalid WebVTT/);
});
