import { test } from "node:test";
import assert from "node:assert/strict";
import type { Word } from "@caption/shared/api/transcript";
import { buildCues, lineText, type Cue } from "./cue-builder.ts";

/** Words spoken back to back, `step` seconds each, from `from`. */
function spoken(text: string, from = 0, step = 0.3): Word[] {
  return text.split(" ").map((t, i) => ({ text: t, start: from + i * step, end: from + (i + 1) * step - 0.05 }));
}

const tenPxPerChar = (text: string) => text.length * 10;
const shape = (cues: Cue[]) => cues.map((c) => c.lines.map((l) => lineText(l.words)));

const cases: { name: string; words: Word[]; lineCount: number; maxLineWidth?: number; expected: string[][] }[] = [
  {
    name: "one line per cue, wrapped by measured width",
    words: spoken("aaa bbb ccc ddd eee"),
    lineCount: 1,
    maxLineWidth: 70,
    expected: [["aaa bbb"], ["ccc ddd"], ["eee"]],
  },
  {
    name: "two lines per cue",
    words: spoken("aaa bbb ccc ddd eee"),
    lineCount: 2,
    maxLineWidth: 70,
    expected: [["aaa bbb", "ccc ddd"], ["eee"]],
  },
  {
    name: "three lines per cue",
    words: spoken("aa bb cc dd ee ff gg"),
    lineCount: 3,
    maxLineWidth: 50,
    expected: [["aa bb", "cc dd", "ee ff"], ["gg"]],
  },
  { name: "line_count 0 shows one word at a time", words: spoken("one two three"), lineCount: 0, expected: [["one"], ["two"], ["three"]] },
  {
    name: "line_count 100 keeps a whole sentence",
    words: spoken("aa bb cc dd ee ff"),
    lineCount: 100,
    maxLineWidth: 50,
    expected: [["aa bb", "cc dd", "ee ff"]],
  },
  {
    name: "sentence ends break cues",
    words: spoken("It works. Does it? Yes! \"Fine.\" ok"),
    lineCount: 3,
    expected: [["It works."], ["Does it?"], ["Yes!"], ["\"Fine.\""], ["ok"]],
  },
  {
    name: "a pause over 0.6 s breaks a cue",
    words: [...spoken("before the pause"), ...spoken("after it", 2)],
    lineCount: 2,
    expected: [["before the pause"], ["after it"]],
  },
  {
    name: "a word wider than the line stays whole on its own line",
    words: spoken("a extraordinarily b"),
    lineCount: 2,
    maxLineWidth: 50,
    expected: [["a", "extraordinarily"], ["b"]],
  },
  {
    name: "blank words are dropped and whitespace is normalised",
    words: [{ text: "  hi ", start: 0, end: 0.2 }, { text: " ", start: 0.2, end: 0.3 }, { text: "there", start: 0.3, end: 0.5 }],
    lineCount: 1,
    expected: [["hi there"]],
  },
];

for (const c of cases) {
  test(`buildCues: ${c.name}`, () => {
    const cues = buildCues(c.words, { lineCount: c.lineCount, maxLineWidth: c.maxLineWidth ?? 1000, measure: tenPxPerChar });
    assert.deepEqual(shape(cues), c.expected);
  });
}

test("buildCues: no cue lasts longer than 7 s even when speech never pauses", () => {
  const words = spoken(Array.from({ length: 60 }, (_, i) => `w${i}`).join(" "), 0, 0.5);
  const cues = buildCues(words, { lineCount: 100, maxLineWidth: 10_000, measure: tenPxPerChar });
  assert.ok(cues.length >= 5);
  for (const cue of cues) assert.ok(cue.end - cue.start <= 7 + 1e-9, `${cue.start}..${cue.end}`);
  assert.equal(cues.flatMap((c) => c.lines.flatMap((l) => l.words)).length, 60);
});

test("buildCues: timing bridges short gaps, lingers before long ones, never overlaps", () => {
  const words: Word[] = [
    { text: "one.", start: 1, end: 1.5 },
    { text: "two.", start: 1.7, end: 2.2 },
    { text: "three", start: 5, end: 5.4 },
  ];
  const cues = buildCues(words, { lineCount: 1, maxLineWidth: 1000, measure: tenPxPerChar, endLimit: 5.5 });
  assert.deepEqual(
    cues.map((c) => [c.start, c.end]),
    [[1, 1.7], [1.7, 2.5], [5, 5.5]],
  );
});

test("buildCues: a cue spans its first word's start to its last word's end", () => {
  const words: Word[] = [
    { text: "a", start: 0.5, end: 0.7 },
    { text: "b", start: 0.8, end: 1.1 },
  ];
  const [cue] = buildCues(words, { lineCount: 1, maxLineWidth: 1000, measure: tenPxPerChar, lingerSeconds: 0 });
  assert.deepEqual(cue, { start: 0.5, end: 1.1, lines: [{ words: [{ text: "a", start: 0.5, end: 0.7 }, { text: "b", start: 0.8, end: 1.1 }] }] });
});

test("buildCues: overlapping word times still give cues that do not overlap", () => {
  const words: Word[] = [
    { text: "a.", start: 0, end: 1.2 },
    { text: "b.", start: 1, end: 1.5 },
    { text: "c", start: 1.4, end: 2 },
  ];
  const cues = buildCues(words, { lineCount: 1, maxLineWidth: 1000, measure: tenPxPerChar });
  for (let i = 1; i < cues.length; i++) assert.ok(cues[i]!.start >= cues[i - 1]!.end);
  assert.ok(cues.every((c) => c.end >= c.start));
});

test("buildCues: no words, no cues", () => {
  assert.deepEqual(buildCues([], { lineCount: 2, maxLineWidth: 100, measure: tenPxPerChar }), []);
});
