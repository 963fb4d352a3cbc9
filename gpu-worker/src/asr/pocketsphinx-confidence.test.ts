import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pino from "pino";
import { decodePcm16kMono } from "../media/audio-pcm.ts";
import { composeSpeech, type SpeechFixture } from "../testing/speech-fixtures.ts";
import { createPocketsphinxEngine } from "./pocketsphinx-engine.ts";
import type { SpeechEngine } from "./speech-engine.ts";
import { transcribeAudio } from "./transcribe-audio.ts";

// Per-word confidence through the worker's path (voice activity detection, then pocketsphinx on each segment) on
// speech spoken faster and faster. flite's duration stretch makes the speaker talk faster (every phone shorter,
// pitch unchanged), which is what a fast talker sounds like; ffmpeg's atempo would stretch normal speech instead,
// and test its artefacts as much as the pace. 0.8, 0.66 and 0.5 are 1.25, 1.5 and 2 times the normal pace (pocketsphinx
// at the normal pace is pocketsphinx-engine.test.ts's).
// At 1.5 times the pace this paragraph is one utterance of some hundred words, three of whose lattice posteriors
// pocketsphinx prints as 1.001 (measured, pocketsphinx 0.8+5prealpha): matched all or nothing, none kept one.
const PARAGRAPH =
  "Good morning everyone and thank you for joining this quick update about the project. Last week the team finished " +
  "the new search page, fixed the login problem that some of you reported, and started work on the mobile version. " +
  "This week we want to test the payment flow with real customers, write the missing documentation, and clean up the " +
  "old reports that nobody reads any more. If you find a bug, please write it down with the steps to repeat it and " +
  "send it to the support channel. We will meet again on Friday at ten to look at the numbers and decide what comes " +
  "next for the summer release.";
const STRETCHES = [0.8, 0.66, 0.5] as const;
const PARAGRAPH_WORDS = PARAGRAPH.split(" ").length;

let engine: SpeechEngine;
const clips = new Map<number, SpeechFixture>();
before(async () => {
  engine = createPocketsphinxEngine();
  for (const stretch of [1, ...STRETCHES]) clips.set(stretch, await composeSpeech([{ text: PARAGRAPH, silenceBefore: 0 }], { durationStretch: stretch }));
});
after(async () => {
  await engine.close();
  await Promise.all([...clips.values()].map((clip) => clip.dispose()));
});

test("the fast clip is spoken at 1.5 times the normal pace", () => {
  const pace = clips.get(1)!.duration / clips.get(0.66)!.duration;
  assert.ok(pace >= 1.45 && pace <= 1.6, `${pace.toFixed(2)}× the normal pace`);
});

for (const stretch of STRETCHES) {
  test(`at flite duration stretch ${stretch}, at least 95 % of words carry a confidence; each word without one is logged with its reason`, async (t) => {
    const clip = clips.get(stretch)!;
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }).child({ job_id: "job_fast" });
    const signal = new AbortController().signal;
    const { words } = await transcribeAudio({ pcm: decodePcm16kMono(clip.path, { signal }), engine, language: "en", signal, logger });
    const carrying = words.filter((word) => word.confidence !== undefined);
    const unmatched = lines.filter((line) => line.msg === "word confidence not matched");
    t.diagnostic(`pace ${(clips.get(1)!.duration / clip.duration).toFixed(2)}×: ${carrying.length} of ${words.length} words carry a confidence; unmatched ${JSON.stringify(unmatched.map((l) => l.reason))}`);
    // Recognition itself suffers at twice the pace (about 80 of the 110 words measured); what is tested is the confidence.
    assert.ok(words.length >= 0.6 * PARAGRAPH_WORDS, `${words.length} of ${PARAGRAPH_WORDS} words recognised`);
    assert.ok(carrying.length >= 0.95 * words.length, `${carrying.length} of ${words.length} words carry a confidence`);
    for (const word of carrying) assert.ok(word.confidence! >= 0 && word.confidence! <= 1, JSON.stringify(word));
    assert.equal(unmatched.length, words.length - carrying.length, "one log line per word without a confidence");
    for (const line of unmatched) {
      assert.equal(line.job_id, "job_fast");
      assert.equal(typeof line.reason, "string");
      assert.equal(typeof line.word_start, "number");
    }
  });
}
