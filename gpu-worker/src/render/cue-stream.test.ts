import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Word } from "@caption/shared/api/transcript";
import { buildCues, type CueBuildOptions } from "./cue-builder.ts";
import { CueStream } from "./cue-stream.ts";

// Words in time order as recognition yields them (gaps from 0 to 2 s, some ending a sentence), cut into
// chunks as VAD segments would be, each chunk handed over with a horizon somewhere before the next word.
const wordsArb = fc
  .array(fc.record({ gap: fc.double({ min: 0, max: 2, noNaN: true }), length: fc.double({ min: 0, max: 1, noNaN: true }), text: fc.constantFrom("we", "captions", "Hello.", "the", "video!", "  ", "x", "longerword") }), { maxLength: 60 })
  .map((drafts) => {
    let t = 0;
    return drafts.map(({ gap, length, text }): Word => {
      const start = t + gap;
      t = start + length;
      return { text, start, end: t };
    });
  });
const optionsArb = fc.record({
  lineCount: fc.constantFrom(0, 1, 2, 3, 100),
  maxLineWidth: fc.integer({ min: 20, max: 300 }),
  endLimit: fc.double({ min: 5, max: 200, noNaN: true }),
});

test("streamed cues are exactly the cues of the whole transcript, whatever the chunking and horizons", () => {
  fc.assert(
    fc.property(
      wordsArb,
      optionsArb,
      fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1 }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1 }),
      (words, draft, sizes, slack) => {
        const options: CueBuildOptions = { ...draft, measure: (text) => text.length * 10 };
        const stream = new CueStream(options);
        const streamed = [];
        for (let from = 0, chunk = 0; from < words.length; chunk++) {
          const to = Math.min(words.length, from + sizes[chunk % sizes.length]!);
          // The horizon: past the chunk's last word, never past the next word's start.
          const lastEnd = words[to - 1]!.end;
          const nextStart = words[to]?.start ?? lastEnd + 5;
          const horizon = lastEnd + (nextStart - lastEnd) * slack[chunk % slack.length]!;
          streamed.push(...stream.add(words.slice(from, to), horizon));
          from = to;
        }
        streamed.push(...stream.finish());
        assert.deepEqual(streamed, buildCues(words, options));
      },
    ),
    { numRuns: 500 },
  );
});

test("a cue is handed out as soon as the next one starts, or a long silence follows it", () => {
  const stream = new CueStream({ lineCount: 2, maxLineWidth: 1000, measure: (text) => text.length });
  const w = (text: string, start: number, end: number): Word => ({ text, start, end });
  assert.deepEqual(stream.add([w("one", 0, 0.4), w("two", 0.5, 0.9)], 1.2), [], "0.3 s after the last word the cue may still grow");
  const [first] = stream.add([], 1.6);
  assert.deepEqual(first, { start: 0, end: 1.2, lines: [{ words: [{ text: "one", start: 0, end: 0.4 }, { text: "two", start: 0.5, end: 0.9 }] }] });
  assert.deepEqual(stream.add([w("three", 2, 2.5)], 2.6), []);
  assert.deepEqual(stream.add([w("four.", 2.7, 3), w("five", 3.1, 3.4)], 3.5).map((c) => c.lines[0]!.words.map((x) => x.text)), [["three", "four."]]);
  assert.deepEqual(stream.finish().map((c) => [c.start, c.end]), [[3.1, 3.6999999999999997]]);
});
