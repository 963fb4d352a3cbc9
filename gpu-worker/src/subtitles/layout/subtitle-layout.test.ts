import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { SUBTITLE_PROFILES, SUBTITLE_PROFILE_IDS, type SubtitleProfile } from "@caption/shared/api/subtitle-profile";
import type { Word } from "@caption/shared/api/transcript";
import { lineText, type Cue } from "../../render/cue-builder.ts";
import { isShortWord } from "./line-breaks.ts";
import { layoutSubtitles } from "./subtitle-layout.ts";
import { cueRuleBreaks, cuesRuleBreaks, layoutRuleBreaks, ruleLimits, type RuleLimits } from "./subtitle-rules.ts";

const NETFLIX = SUBTITLE_PROFILES.netflix;

/** Words spoken back to back, `step` seconds each, from `from`. */
function spoken(text: string, from = 0, step = 0.3): Word[] {
  return text.split(" ").map((t, i) => ({ text: t, start: from + i * step, end: from + (i + 1) * step - 0.05 }));
}
const shape = (cues: Cue[]) => cues.map((c) => c.lines.map((l) => lineText(l.words)));
const layout = (words: Word[], profile: SubtitleProfile = NETFLIX, frameRate = 25, durationSeconds = 600) =>
  layoutSubtitles(words, { profile, frameRate, durationSeconds });

test("one word at a time becomes cues of whole sentences within the line limits", () => {
  const words = spoken("The quick brown fox jumps over the lazy dog. Then it runs into the forest, far away from the farm, and sleeps.", 0, 0.4);
  const { cues, breaks } = layout(words);
  assert.deepEqual(shape(cues), [
    ["The quick brown fox", "jumps over the lazy dog."],
    ["Then it runs into the forest,", "far away from the farm, and sleeps."],
  ]);
  assert.deepEqual(breaks, [[], []]);
});

test("a gap under half a second is closed to two frames of the video; a longer one stays", () => {
  const words = [...spoken("First sentence here.", 0, 0.4), ...spoken("Second one follows.", 1.5, 0.4), ...spoken("And a third.", 5, 0.4)];
  for (const frameRate of [25, 30, 60]) {
    const { cues } = layout(words, NETFLIX, frameRate);
    assert.equal(cues.length, 3);
    assert.equal(Math.round((cues[1]!.start - cues[0]!.end) * 1000), Math.ceil(2000 / frameRate));
    assert.equal(cues[1]!.end, 2.65 + 0.5, "kept the full half second after its last word");
  }
});

test("a cue never starts before its first word nor stays more than 0.5 s after its last", () => {
  const { cues } = layout([{ text: "Hi.", start: 3, end: 3.1 }]);
  assert.deepEqual(cues.map((c) => [c.start, c.end]), [[3, 3.6]]);
});

test("speech too fast for any layout completes, each cue saying which rule it breaks and by how much", () => {
  // 20 words of 9 characters in 5 s, then the video ends: 40 characters per second however they are grouped.
  const words = Array.from({ length: 20 }, (_, i): Word => ({ text: `word${String(i).padStart(4, "0")},`, start: i * 0.25, end: (i + 1) * 0.25 }));
  const { cues, breaks } = layout(words, NETFLIX, 25, 5.5);
  assert.ok(cues.length >= 2);
  const reading = breaks.flat().filter((b) => b.rule === "reading_speed");
  assert.ok(reading.length > 0, `the fast cues break the reading speed: ${JSON.stringify(breaks)}`);
  for (const b of reading) {
    assert.equal(b.limit, 20);
    assert.ok(b.value > 20 && b.excess === Math.round((b.value - 20) * 100) / 100);
  }
});

test("a word longer than a line stands alone and is reported", () => {
  const word = "Pneumonoultramicroscopicsilicovolcanoconiosis-related";
  const { cues, breaks } = layout(spoken(`It is ${word} trouble.`, 0, 1));
  assert.ok(cues.some((c) => c.lines.some((l) => l.words.length === 1 && l.words[0]!.text === word)));
  assert.deepEqual(breaks.flat().filter((b) => b.rule === "max_chars_per_line").map((b) => b.value), [word.length]);
});

test("lines break at a sentence before a clause, at a clause before a word, and never strand a short word", () => {
  const fits = (text: string) => shape(layout(spoken(text, 0, 0.5)).cues)[0];
  assert.deepEqual(fits("We went home after the long match. It was late and we were tired"), ["We went home after the long match.", "It was late and we were tired"]);
  assert.deepEqual(fits("When the match ended after extra time, everyone went home happy"), ["When the match ended after extra time,", "everyone went home happy"]);
  // Breaking after "Yes." would leave it alone on its line.
  assert.deepEqual(fits("Yes. I think we should all go to the market right now"), ["Yes. I think we should all", "go to the market right now"]);
});

test("BBC counts words per minute and vertical allows three short lines", () => {
  const bbc = layout(spoken("one two three four five six seven", 0, 0.2), SUBTITLE_PROFILES.bbc);
  const wpm = bbc.breaks.flat().find((b) => b.rule === "reading_speed");
  assert.equal(wpm?.unit, "words_per_minute");
  const vertical = layout(spoken("This sentence is long enough to need three lines of vertical text.", 0, 0.45), SUBTITLE_PROFILES.vertical);
  assert.deepEqual(vertical.breaks.flat(), []);
  assert.ok(vertical.cues.some((c) => c.lines.length === 3));
  assert.ok(vertical.cues.every((c) => c.lines.every((l) => lineText(l.words).length <= 25)));
});

// ---- property: the layout never breaks a rule it could have kept ----

const TEXTS = ["a", "I", "to", "the", "cat", "runs", "yes.", "quickly", "however,", "said:", "home.", "why?", "beautiful", "extraordinary", "responsibilities", "internationalisation", "Pneumonoultramicroscopicsilicovolcanoconiosis"];

/** Fast, slow, long words, long silences. */
const wordStream = (maxWords: number) =>
  fc
    .array(
      fc.record({
        text: fc.constantFrom(...TEXTS),
        gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 300, max: 1200 }), fc.integer({ min: 1200, max: 6000 })),
        length: fc.oneof(fc.integer({ min: 20, max: 150 }), fc.integer({ min: 150, max: 600 }), fc.integer({ min: 600, max: 2500 })),
      }),
      { minLength: 1, maxLength: maxWords },
    )
    .map((drafts) => {
      let at = 0;
      return drafts.map((d): Word => {
        const start = (at += d.gap);
        at += d.length;
        return { text: d.text, start: start / 1000, end: at / 1000 };
      });
    });
const profileArb = fc.constantFrom(...SUBTITLE_PROFILE_IDS).map((id) => SUBTITLE_PROFILES[id]);
const frameRateArb = fc.constantFrom(23.976, 25, 29.97, 30, 50, 60);

/** Every split of n items into consecutive non-empty runs, as run lengths. */
function* compositions(n: number): Generator<number[]> {
  if (n === 0) return yield [];
  for (let first = 1; first <= n; first++) for (const rest of compositions(n - first)) yield [first, ...rest];
}

/** Whether the words can be put on at most maxLines lines, each within the limit or a single word. */
function linesFit(texts: string[], limits: RuleLimits, banLoneShort = false): boolean {
  for (const runs of compositions(texts.length)) {
    if (runs.length > limits.maxLines) continue;
    let at = 0;
    const ok = runs.every((len) => {
      const line = texts.slice(at, (at += len));
      return (line.join(" ").length <= limits.maxCharsPerLine || len === 1) && !(banLoneShort && runs.length > 1 && len === 1 && isShortWord(line[0]!));
    });
    if (ok) return true;
  }
  return false;
}

/** The fewest (cue, rule) breaks of any layout of the words, by trying every grouping and every end time that matters. */
function fewestBreaks(words: Word[], limits: RuleLimits, videoEndMs: number): number {
  const ms = words.map((w) => ({ text: w.text, s: Math.round(w.start * 1000), e: Math.round(w.end * 1000) }));
  let best = Infinity;
  for (const runs of compositions(ms.length)) {
    let total = 0;
    let at = 0;
    for (const len of runs) {
      const cueWords = ms.slice(at, (at += len));
      const texts = cueWords.map((w) => w.text);
      if (!linesFit(texts, limits)) {
        total = Infinity;
        break;
      }
      const next = at < ms.length ? ms[at]!.s : null;
      const s = cueWords[0]!.s;
      const e = Math.max(...cueWords.map((w) => w.e));
      const latest = Math.max(s, Math.min(next ?? Infinity, videoEndMs, e + limits.maxLingerMs));
      // Every 20 ms, and around every point where a rule's verdict can change.
      const points = new Set<number>();
      for (let t = s; t <= latest; t += 20) points.add(t);
      const gapPoints = next === null ? [] : [next - limits.minGapMs, next - limits.closeGapsBelowMs];
      for (const p of [latest, e, s + limits.minDurationMs, s + limits.maxDurationMs, ...gapPoints]) {
        for (const q of [p - 1, p, p + 1]) if (q >= s && q <= latest) points.add(q);
      }
      const chars = [...texts.join(" ")].length;
      const wordsPerSecond = limits.maxWordsPerMinute === null ? null : limits.maxWordsPerMinute / 60;
      for (const [count, rate] of [[chars, limits.maxCharsPerSecond], [len, wordsPerSecond]] as const) {
        if (rate === null) continue;
        const p = s + Math.ceil((count * 1000) / rate);
        for (const q of [p - 1, p, p + 1]) if (q >= s && q <= latest) points.add(q);
      }
      const overlong = texts.some((t) => [...t].length > limits.maxCharsPerLine) ? 1 : 0;
      let fewest = Infinity;
      for (const endMs of points) {
        // One line of all the words: the timing rules count a line break as the space it stands for.
        const line = { words: cueWords.map((w) => ({ text: w.text, start: w.s / 1000, end: w.e / 1000 })) };
        const cue: Cue = { start: s / 1000, end: endMs / 1000, lines: [line] };
        const timingBreaks = cueRuleBreaks(cue, next === null ? null : next / 1000, limits).filter((b) => b.rule !== "max_chars_per_line" && b.rule !== "max_lines");
        fewest = Math.min(fewest, timingBreaks.length);
      }
      total += overlong + fewest;
    }
    best = Math.min(best, total);
  }
  return best;
}

function assertInvariants(words: Word[], profile: SubtitleProfile, frameRate: number, durationSeconds: number) {
  const limits = ruleLimits(profile, frameRate);
  const { cues, breaks } = layoutSubtitles(words, { profile, frameRate, durationSeconds });
  const checked = cuesRuleBreaks(cues, limits);
  assert.deepEqual(breaks, checked, "the layout reports exactly what the checker finds in its cues");
  assert.deepEqual(cues.flatMap((c) => c.lines.flatMap((l) => l.words.map((w) => w.text))), [...words].sort((a, b) => a.start - b.start).map((w) => w.text));
  for (const [i, cue] of cues.entries()) {
    assert.ok(!checked[i]!.some((b) => b.rule === "early_start" || b.rule === "late_end" || b.rule === "max_lines"), JSON.stringify(checked[i]));
    assert.ok(cue.end >= cue.start && cue.end <= (cues[i + 1]?.start ?? Infinity), "cues never overlap");
    for (const line of cue.lines) assert.ok(lineText(line.words).length <= limits.maxCharsPerLine || line.words.length === 1);
    const texts = cue.lines.flatMap((l) => l.words.map((w) => w.text));
    const stranded = cue.lines.length > 1 && cue.lines.some((l) => l.words.length === 1 && isShortWord(l.words[0]!.text));
    if (stranded) assert.ok(!linesFit(texts, limits, true), `a short word stands alone although a split without one fits: ${JSON.stringify(shape([cue]))}`);
  }
  return { cues, checked, limits };
}

test("property: on random speech the layout breaks no more rules than the best layout there is", () => {
  fc.assert(
    fc.property(wordStream(6), profileArb, frameRateArb, (words, profile, frameRate) => {
      const durationSeconds = (Math.max(...words.map((w) => w.end)) * 1000 + 300) / 1000;
      const { checked, limits } = assertInvariants(words, profile, frameRate, durationSeconds);
      const ours = checked.flat().length;
      assert.equal(ours, fewestBreaks(words, limits, Math.floor(durationSeconds * 1000)), `our layout breaks ${ours}: ${JSON.stringify(checked)}`);
    }),
    { numRuns: 150 },
  );
});

test("property: long random speech keeps every rule that needs no more than a regrouping", () => {
  fc.assert(
    fc.property(wordStream(200), profileArb, frameRateArb, (words, profile, frameRate) => {
      const durationSeconds = Math.max(...words.map((w) => w.end)) + 1;
      const { cues, checked, limits } = assertInvariants(words, profile, frameRate, durationSeconds);
      // A cue of one word, alone in time (the previous cue far before it), that keeps the lines and reading speed
      // could always have been timed legally unless the next word follows too close.
      for (const [i, cue] of cues.entries()) {
        const next = cues[i + 1];
        const word = cue.lines[0]!.words[0]!;
        const roomy = next === undefined ? durationSeconds - word.end > 1 : next.start - word.end > 1;
        const alone = cue.lines.length === 1 && cue.lines[0]!.words.length === 1;
        if (alone && word.text.length <= limits.maxCharsPerLine && roomy && word.end - word.start <= 6 && word.end - word.start >= 0.5) {
          assert.deepEqual(checked[i], [], `${JSON.stringify(cue)} could keep every rule`);
        }
      }
    }),
    { numRuns: 40 },
  );
});

test("the checker finds each broken rule in cues written by hand", () => {
  const limits = ruleLimits(NETFLIX, 25);
  const w = (text: string, start: number, end: number) => ({ text, start, end });
  const cue = (start: number, end: number, ...lines: ReturnType<typeof w>[][]): Cue => ({ start, end, lines: lines.map((words) => ({ words })) });
  const rules = (c: Cue, next: number | null) => cueRuleBreaks(c, next, limits).map((b) => b.rule);
  assert.deepEqual(rules(cue(1, 2, [w("fine", 1, 1.5)]), null), []);
  assert.deepEqual(rules(cue(0.9, 2.1, [w("fine", 1, 1.5)]), null), ["early_start", "late_end"]);
  assert.deepEqual(rules(cue(1, 1.5, [w("short", 1, 1.5)]), 1.6), ["min_duration", "gap_not_closed"]);
  assert.deepEqual(rules(cue(1, 1.95, [w("close", 1, 1.5)]), 2), ["min_gap"]);
  assert.deepEqual(rules(cue(0, 8, [w("long", 0, 7.9)]), null), ["max_duration"]);
  assert.deepEqual(rules(cue(0, 0.8, [w("a", 0, 0.1)], [w("b", 0.1, 0.2)], [w("c", 0.2, 0.3)]), null), ["max_lines", "min_duration"]);
  assert.deepEqual(rules(cue(0, 1, [w("x".repeat(43), 0, 0.9)]), null), ["max_chars_per_line", "reading_speed"]);
  assert.deepEqual(layoutRuleBreaks(cue(0, 1, [w("x".repeat(42), 0, 0.9)]), limits), []);
});
