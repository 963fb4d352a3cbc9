import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import type { Word } from "@caption/shared/api/transcript";
import { parseDictionary } from "../asr/vocabulary/cmu-dictionary.ts";
import { phoneticLexicon } from "../asr/vocabulary/phonetic-lexicon.ts";
import { THREAD_NAME } from "./vocabulary-snapper.ts";
import { createWordPass, distinctTerms } from "./word-pass.ts";

// The vocabulary: terms of one-letter words, each letter said in several phones, over words that sound
// like them. Unbounded, the post-pass would take hours on 100 terms of 25 words; it is what the thread and the
// budget are for. Terms of 10 words keep each word's work (and the wait for a report) short.
const lexicon = phoneticLexicon(parseDictionary("a AH0\na(2) EY1\nw D AH1 B AH0 L Y UW0\n"));
const worstTerm = (n: number, words = 10) => Array.from({ length: words }, (_, k) => ((n >> k % 10) & 1 ? "a" : "w")).join(" ");
const WORST = Array.from({ length: 100 }, (_, n) => worstTerm(n * 37 + 5));
const heard = (count: number, from = 0): Word[] => Array.from({ length: count }, (_, i) => ({ text: (i + from) % 7 === 3 ? "a" : "w", start: i + from, end: i + from + 0.9 }));
const OPTIONS = { replacements: {}, profanity: "keep" as const };

/** How many of this process's threads are vocabulary threads (Linux names each thread in /proc). */
const vocabularyThreads = () =>
  readdirSync("/proc/self/task").filter((task) => {
    try {
      return readFileSync(`/proc/self/task/${task}/comm`, "utf8").trim() === THREAD_NAME;
    } catch {
      return false;
    }
  }).length;

/** Resolves at the `n`th tick of a 1 ms timer (which fires only while the event loop is free). */
function ticks(n: number): Promise<void> {
  return new Promise((resolve) => {
    let count = 0;
    const timer = setInterval(() => {
      if (++count < n) return;
      clearInterval(timer);
      resolve();
    }, 1);
  });
}

test("the post-pass runs beside the event loop: timers keep firing while it works, and a cancel stops its thread", async () => {
  const reports: number[] = [];
  let reported: (() => void) | undefined;
  const pass = await createWordPass({ vocabulary: WORST, ...OPTIONS }, lexicon, {
    seconds: 60,
    budget: Infinity,
    onProgress: (used) => {
      reports.push(used);
      reported?.();
    },
  });
  const nextReport = () => new Promise<void>((resolve) => (reported = resolve));
  const cancel = new AbortController();
  let settled = false;
  const snapping = pass(heard(5000), cancel.signal).finally(() => (settled = true));
  snapping.catch(() => undefined);

  await nextReport();
  await ticks(5);
  const before = reports.length;
  await nextReport();
  assert.equal(settled, false, "the pass is still at work");
  assert.ok(reports.length > before && reports.at(-1)! > 0, "and the thread reported work after the timer ticked");
  assert.equal(vocabularyThreads(), 1);

  cancel.abort(new Error("job canceled"));
  await assert.rejects(snapping, /job canceled/);
  assert.equal(vocabularyThreads(), 0, "the cancel stopped the thread");

  // The pass goes on with another thread for the next stretch (a cancel ends the job; a deadline, too).
  const after = await pass(heard(3, 200));
  assert.deepEqual([after[0]!.start, after.at(-1)!.end], [200, 202.9]);
  assert.equal(vocabularyThreads(), 1);
  await pass.close();
  assert.equal(vocabularyThreads(), 0, "closing the pass stops its thread");
});

test("the work budget is the job's: stretches share it, none spends past it, and spelling matches once it is spent", async () => {
  const pass = await createWordPass({ vocabulary: [...WORST.slice(0, 20), "Kubernetes"], ...OPTIONS }, lexicon, { seconds: 60, budget: 3_000_000 });
  const first = await pass(heard(60));
  assert.ok(pass.work!.used > 0 && pass.work!.used <= 3_000_000, JSON.stringify(pass.work));
  const second = await pass([...heard(60, 60), { text: "Kubernetes,", start: 120, end: 121 }]);
  await pass.close();
  assert.equal(pass.work!.spent, true);
  assert.ok(pass.work!.used <= 3_000_000, JSON.stringify(pass.work));
  assert.equal(first.length + second.length > 0, true);
  assert.deepEqual(second.at(-1), { text: "Kubernetes,", start: 120, end: 121, vocabulary: true });
});

test("terms given more than once are looked for once", async () => {
  const once = await createWordPass({ vocabulary: WORST.slice(0, 3), ...OPTIONS }, lexicon, { seconds: 60, budget: Infinity });
  const repeated = [...WORST.slice(0, 3), ...Array.from({ length: 97 }, (_, k) => (k % 2 ? WORST[k % 3]! : WORST[k % 3]!.toUpperCase()))];
  assert.deepEqual(distinctTerms(repeated), WORST.slice(0, 3));
  const many = await createWordPass({ vocabulary: repeated, ...OPTIONS }, lexicon, { seconds: 60, budget: Infinity });
  const words = heard(40);
  const [a, b] = [await once(words), await many(words)];
  await Promise.all([once.close(), many.close()]);
  assert.deepEqual(b, a);
  assert.equal(many.work!.used, once.work!.used, "the same work, counted in units");
});
