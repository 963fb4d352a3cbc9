import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { decodePcm16kMono } from "../media/audio-pcm.ts";
import { voiceActivityFixtures, type VoiceActivityFixtures } from "../testing/speech-fixtures.ts";
import { SAMPLE_RATE, type SpeechSegment } from "./speech-engine.ts";
import { segmentLimitSeconds, segmentSpeech } from "./voice-activity.ts";

let fixtures: VoiceActivityFixtures;
before(async () => (fixtures = await voiceActivityFixtures()));
after(() => fixtures.dispose());

async function collect(path: string, options: { maxSegmentSeconds?: number; firstSegmentSeconds?: number } = {}): Promise<SpeechSegment[]> {
  const signal = new AbortController().signal;
  const found: SpeechSegment[] = [];
  for await (const segment of segmentSpeech(decodePcm16kMono(path, { signal }), { signal, ...options })) found.push(segment);
  return found;
}

const endOf = (segment: SpeechSegment) => segment.start + segment.samples.length / SAMPLE_RATE;

test("finds each sentence as one segment at its place, nothing in the silence between", async () => {
  const segments = await collect(fixtures.twoSentences.path);
  assert.equal(segments.length, 2, JSON.stringify(segments.map((s) => [s.start, endOf(s)])));
  for (const [i, sentence] of fixtures.twoSentences.sentences.entries()) {
    const segment = segments[i]!;
    // flite clips carry ~0.1 s of their own silence at each edge; the VAD pads by 0.25 s.
    assert.ok(Math.abs(segment.start - sentence.start) < 0.4, `segment ${i} starts at ${segment.start}, clip at ${sentence.start}`);
    assert.ok(Math.abs(endOf(segment) - sentence.end) < 0.4, `segment ${i} ends at ${endOf(segment)}, clip at ${sentence.end}`);
  }
  assert.ok(endOf(segments[0]!) < segments[1]!.start);
});

test("the samples are the audio at the segment's absolute position", async () => {
  const signal = new AbortController().signal;
  const all: number[] = [];
  for await (const chunk of decodePcm16kMono(fixtures.twoSentences.path, { signal })) all.push(...chunk);
  for (const segment of await collect(fixtures.twoSentences.path)) {
    const from = Math.round(segment.start * SAMPLE_RATE);
    assert.deepEqual(segment.samples, Float32Array.from(all.slice(from, from + segment.samples.length)));
  }
});

test("speech without pauses is cut into contiguous pieces no longer than the maximum", async () => {
  const segments = await collect(fixtures.runOn.path, { maxSegmentSeconds: 4 });
  const sentence = fixtures.runOn.sentences[0]!;
  assert.ok(segments.length >= Math.ceil((sentence.end - sentence.start) / 4), `${segments.length} segments`);
  for (const [i, segment] of segments.entries()) {
    assert.ok(segment.samples.length <= 4 * SAMPLE_RATE, `segment ${i} has ${segment.samples.length} samples`);
    if (i > 0) assert.equal(Math.round(segment.start * SAMPLE_RATE), Math.round(endOf(segments[i - 1]!) * SAMPLE_RATE));
  }
  assert.ok(Math.abs(segments[0]!.start - sentence.start) < 0.4);
  assert.ok(Math.abs(endOf(segments.at(-1)!) - sentence.end) < 0.4);
});

test("the first segment is cut short, so the first words come soon; what follows it is one segment when it fits", async () => {
  const sentence = fixtures.runOn.sentences[0]!;
  assert.ok(sentence.end - sentence.start > 6.5, `${sentence.end - sentence.start} s of speech`);
  const [first, ...rest] = await collect(fixtures.runOn.path);
  assert.ok(first!.samples.length <= 6 * SAMPLE_RATE && first!.samples.length >= 3 * SAMPLE_RATE, `first segment ${first!.samples.length / SAMPLE_RATE} s`);
  assert.equal(rest.length, 1, "the rest of the sentence is one segment");
  assert.equal(Math.round(rest[0]!.start * SAMPLE_RATE), Math.round(endOf(first!) * SAMPLE_RATE));
  // As long as any other, the first is the whole sentence.
  assert.equal((await collect(fixtures.runOn.path, { firstSegmentSeconds: 25 })).length, 1);
});

test("a segment may be as long as the audio before it: short at first, then growing to the maximum", () => {
  const limits = { firstSeconds: 6, maxSeconds: 25 };
  assert.deepEqual([0, 4, 6, 9.5, 20, 25, 300].map((start) => segmentLimitSeconds(start, limits)), [6, 6, 6, 9.5, 20, 25, 25]);
  assert.equal(segmentLimitSeconds(40, { firstSeconds: 25, maxSeconds: 25 }), 25);
});

test("long speech without pauses comes in segments that grow with the audio before them", async () => {
  const sentence = fixtures.runOn.sentences[0]!;
  const segments = await collect(fixtures.runOn.path, { firstSegmentSeconds: 2, maxSegmentSeconds: 25 });
  assert.ok(segments.length >= 3, `${segments.length} segments over ${sentence.end - sentence.start} s`);
  for (const [i, segment] of segments.entries()) {
    const seconds = segment.samples.length / SAMPLE_RATE;
    assert.ok(seconds <= Math.max(2, segment.start) + 1e-9, `segment ${i} at ${segment.start} s lasts ${seconds} s`);
  }
});

test("stops with the abort reason", async () => {
  const controller = new AbortController();
  const reason = new Error("job canceled");
  const speech = segmentSpeech(decodePcm16kMono(fixtures.twoSentences.path, { signal: controller.signal }), { signal: controller.signal });
  const iterator = speech[Symbol.asyncIterator]();
  await iterator.next();
  controller.abort(reason);
  await assert.rejects(iterator.next(), (error) => error === reason);
});

test("the event loop turns while the detector works: a cancel heard meanwhile stops it within the chunk", async () => {
  // Audio already in memory, as a pipe full of it is: without a turn of the loop between chunks, the detector
  // would read them all before any timer, notification or exit could be handled.
  const pieces: Float32Array[] = [];
  for await (const piece of decodePcm16kMono(fixtures.twoSentences.path, { signal: new AbortController().signal })) pieces.push(piece);
  const audio = Float32Array.from(pieces.flatMap((piece) => [...piece]));
  // A second of audio each, as a full pipe's reads come.
  const chunks = Array.from({ length: Math.ceil(audio.length / SAMPLE_RATE) }, (_, i) => audio.subarray(i * SAMPLE_RATE, (i + 1) * SAMPLE_RATE));
  const controller = new AbortController();
  const reason = new Error("job canceled");
  let read = 0;
  let readWhenHeard = -1;
  async function* buffered(): AsyncGenerator<Float32Array> {
    for (const chunk of [...chunks, ...chunks, ...chunks]) {
      // As the first chunk is read, the cancel's notification arrives: a callback from the event loop.
      if (++read === 1) {
        setImmediate(() => {
          readWhenHeard = read;
          controller.abort(reason);
        });
      }
      yield chunk;
    }
  }
  const speech = segmentSpeech(buffered(), { signal: controller.signal, maxSegmentSeconds: 25 });
  await assert.rejects(
    (async () => {
      for await (const _segment of speech);
    })(),
    (error) => error === reason,
  );
  // Heard while the first chunk was being worked through, and nothing read after it.
  assert.deepEqual([readWhenHeard, read], [1, 1], `heard after ${readWhenHeard} of ${3 * chunks.length} chunks, ${read} read`);
});

test("a damaged model file is refused before it reaches onnxruntime", async () => {
  const dir = await mkdtemp(join(tmpdir(), "vad-model-"));
  try {
    const pointer = join(dir, "silero_vad.onnx");
    await writeFile(pointer, "version https://git-lfs.github.com/spec/v1\noid sha256:1a15\nsize 2327524\n");
    const signal = new AbortController().signal;
    const speech = segmentSpeech(decodePcm16kMono(fixtures.twoSentences.path, { signal }), { signal, modelPath: pointer });
    await assert.rejects(speech.next(), /silero_vad\.onnx has \d+ bytes/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
