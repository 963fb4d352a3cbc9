import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { decodePcm16kMono } from "../media/audio-pcm.ts";
import { voiceActivityFixtures, type VoiceActivityFixtures } from "../testing/speech-fixtures.ts";
import { speechDetectors, type SpeechDetectors } from "./speech-detectors.ts";
import { SAMPLE_RATE, type SpeechSegment } from "./speech-engine.ts";
import { segmentSpeech } from "./voice-activity.ts";

// The worker builds its voice-activity detectors before it takes jobs and lends one to each job: a detector that
// comes back must find what a new one finds, whatever the job before left in it, and two jobs at once never share one.

let fixtures: VoiceActivityFixtures;
before(async () => (fixtures = await voiceActivityFixtures()));
after(() => fixtures.dispose());

interface Found {
  segments: SpeechSegment[];
  speech: { start: number; end: number }[];
}

/** Segments of at most 4 s by default: the run-on sentence flushes the detector mid-speech. */
async function segmentsOf(path: string, detectors?: SpeechDetectors, maxSegmentSeconds = 4): Promise<Found> {
  const signal = new AbortController().signal;
  const found: Found = { segments: [], speech: [] };
  const options = { signal, maxSegmentSeconds, onSpeech: (stretch: Found["speech"][number]) => found.speech.push(stretch), ...(detectors ? { detectors } : {}) };
  for await (const segment of segmentSpeech(decodePcm16kMono(path, { signal }), options)) found.segments.push(segment);
  return found;
}

/** Feeds `seconds` of the speech in `path`, then cancels: the detector goes back mid-utterance. */
async function cancelMidSpeech(path: string, detectors: SpeechDetectors, seconds: number): Promise<void> {
  const controller = new AbortController();
  let fed = 0;
  async function* partly(): AsyncGenerator<Float32Array> {
    for await (const chunk of decodePcm16kMono(path, { signal: new AbortController().signal })) {
      yield chunk;
      fed += chunk.length;
      if (fed >= seconds * SAMPLE_RATE) controller.abort(new Error("job canceled"));
    }
  }
  await assert.rejects(
    (async () => {
      for await (const _segment of segmentSpeech(partly(), { signal: controller.signal, detectors, maxSegmentSeconds: 4 }));
    })(),
    /job canceled/,
  );
}

test("a detector reused after other jobs (one canceled mid-speech) finds what a new one finds", async () => {
  const fresh = await segmentsOf(fixtures.twoSentences.path);
  assert.equal(fresh.segments.length, 2);
  const detectors = speechDetectors();
  await detectors.prepare(1, 4);
  await segmentsOf(fixtures.runOn.path, detectors);
  await cancelMidSpeech(fixtures.runOn.path, detectors, 3);
  assert.deepEqual([detectors.built, detectors.lent], [1, 0], "one detector, back after the cancel");
  assert.deepEqual(await segmentsOf(fixtures.twoSentences.path, detectors), fresh);
  assert.equal(detectors.built, 1);
});

test("two jobs at once get a detector each, and each finds what it finds alone", async () => {
  const alone = await Promise.all([segmentsOf(fixtures.twoSentences.path), segmentsOf(fixtures.runOn.path)]);
  const detectors = speechDetectors();
  let lentAtOnce = 0;
  const watched = {
    take: async (seconds: number) => {
      const lease = await detectors.take(seconds);
      lentAtOnce = Math.max(lentAtOnce, detectors.lent);
      return lease;
    },
    prepare: detectors.prepare,
    get built() {
      return detectors.built;
    },
    get lent() {
      return detectors.lent;
    },
  };
  const together = await Promise.all([segmentsOf(fixtures.twoSentences.path, watched), segmentsOf(fixtures.runOn.path, watched)]);
  assert.equal(lentAtOnce, 2, "both were lent at once");
  assert.deepEqual(together, alone);
  assert.deepEqual([detectors.built, detectors.lent], [2, 0]);
  // Both back: the next two jobs at once build nothing.
  assert.deepEqual(await Promise.all([segmentsOf(fixtures.runOn.path, detectors), segmentsOf(fixtures.twoSentences.path, detectors)]), [alone[1], alone[0]]);
  assert.equal(detectors.built, 2);
});

test("prepare builds up to the count asked for, and a job takes a prepared one", async () => {
  const detectors = speechDetectors();
  await detectors.prepare(2, 4);
  await detectors.prepare(2, 4);
  assert.equal(detectors.built, 2);
  await segmentsOf(fixtures.twoSentences.path, detectors);
  assert.deepEqual([detectors.built, detectors.lent], [2, 0]);
});
