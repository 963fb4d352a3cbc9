import { test } from "node:test";
import assert from "node:assert/strict";
import type { Cue } from "../render/cue-builder.ts";
import { cuesToSrt, formatSrtTime, parseSrt } from "./srt.ts";

const cue = (start: number, end: number, ...lines: string[]): Cue => ({
  start,
  end,
  lines: lines.map((l) => ({ words: l.split(" ").map((text) => ({ text, start, end })) })),
});

for (const [seconds, expected] of [
  [0, "00:00:00,000"],
  [1.2345, "00:00:01,235"],
  [59.9996, "00:01:00,000"],
  [3723.004, "01:02:03,004"],
  [-0.5, "00:00:00,000"],
] as const) {
  test(`formatSrtTime(${seconds}) is ${expected}`, () => assert.equal(formatSrtTime(seconds), expected));
}

test("cuesToSrt numbers from 1, one block per cue, lines kept", () => {
  const srt = cuesToSrt([cue(0.5, 1.25, "Hello there", "general Kenobi"), cue(2, 3.5, "¿Qué tal?")]);
  assert.equal(srt, "1\n00:00:00,500 --> 00:00:01,250\nHello there\ngeneral Kenobi\n\n2\n00:00:02,000 --> 00:00:03,500\n¿Qué tal?\n");
});

test("cuesToSrt round-trips through parseSrt", () => {
  const cues = [cue(0, 0.4, "a"), cue(0.4, 7.4, "two words", "and more"), cue(61.001, 3600.5, "end.")];
  assert.deepEqual(
    parseSrt(cuesToSrt(cues)),
    cues.map((c, i) => ({ index: i + 1, start: c.start, end: c.end, text: c.lines.map((l) => l.words.map((w) => w.text).join(" ")).join("\n") })),
  );
});

test("cuesToSrt of no cues is empty", () => {
  assert.equal(cuesToSrt([]), "");
  assert.deepEqual(parseSrt(""), []);
});

test("parseSrt rejects malformed blocks", () => {
  assert.throws(() => parseSrt("1\n00:00:00.000 --> 00:00:01,000\nx\n"), /Malformed/);
});
