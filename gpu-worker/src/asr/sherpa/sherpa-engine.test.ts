// Real sherpa-onnx-node inference, end to end. No trained recognizer can be fetched on our machines,
// so these tests build a tiny NeMo-CTC-style ONNX model themselves (tiny-onnx-model.ts): each of its
// three pieces fires on a pure tone in one mel band. sherpa-onnx loads it like any NeMo CTC model
// (metadata, tokens.txt, fbank front end, greedy CTC decoding, frame timestamps), so the tests
// exercise the real loading, decoding and timestamp path; they cannot say anything about accuracy.
import assert from "node:assert/strict";
import { mkdtemp, rm, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { JobFailure } from "@caption/shared/errors/codes";
import type { Word } from "@caption/shared/api/transcript";
import { markedSpeech } from "../../testing/marked-speech.ts";
import { SAMPLE_RATE, type SpeechEngine } from "../speech-engine.ts";
import { transcribeAudio } from "../transcribe-audio.ts";
import { ModelVerificationError } from "./model-files.ts";
import { loadSherpaEngine } from "./sherpa-engine.ts";
import { installTinyCtcModel } from "../../testing/tiny-onnx-model.ts";
import { melBinCentreHz, toneTrack } from "../../testing/tones.ts";

// High mel bands: flite's speech has no narrow peaks there, so it never fires a piece by itself.
const HEL = { piece: "▁hel", bin: 56 };
const LO = { piece: "lo", bin: 64 };
const WORLD = { piece: "▁world", bin: 72 };
const hz = (token: { bin: number }) => melBinCentreHz(token.bin);
/** One 10 ms frame plus the half analysis window the tone needs to dominate it. */
const FRAME_TOLERANCE = 0.025;

let root: string;
let modelDir: string;
let engine: SpeechEngine;
const signal = new AbortController().signal;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "sherpa-engine-"));
  modelDir = join(root, "models");
  await installTinyCtcModel(join(modelDir, "tiny-tone-ctc"), [HEL, LO, WORLD], { languages: ["en", "fr"] });
  const loaded = await loadSherpaEngine({ modelDir });
  assert.ok(loaded, "the installed tiny model loads");
  engine = loaded;
});

after(async () => {
  await engine.close();
  await rm(root, { recursive: true, force: true });
});

function assertWordsNear(actual: Word[], expected: Word[]): void {
  assert.deepEqual(
    actual.map((w) => w.text),
    expected.map((w) => w.text),
  );
  for (const [i, word] of actual.entries()) {
    const want = expected[i];
    assert.ok(want);
    assert.ok(Math.abs(word.start - want.start) <= FRAME_TOLERANCE, `${word.text} starts at ${word.start}, expected ≈${want.start}`);
    assert.ok(Math.abs(word.end - want.end) <= FRAME_TOLERANCE, `${word.text} ends at ${word.end}, expected ≈${want.end}`);
  }
}

test("the engine describes the installed model", () => {
  assert.equal(engine.name, "sherpa-onnx");
  assert.equal(engine.model, "tiny-tone-ctc");
  assert.deepEqual(engine.languages, ["en", "fr"]);
  assert.equal(engine.detectsLanguage, false);
  assert.equal(engine.biasing, false, "CTC models decode greedily: no hotwords");
});

test("tones decode to pieces that merge into words at absolute times", async () => {
  const start = 12.5;
  const samples = toneTrack(1.5, [
    { hz: hz(HEL), start: 0.2, end: 0.4 },
    { hz: hz(LO), start: 0.45, end: 0.6 },
    { hz: hz(WORLD), start: 0.9, end: 1.2 },
  ]);
  // A vocabulary is ignored by an engine without biasing.
  const words = await engine.transcribe({ start, samples }, { language: "en", signal, vocabulary: ["hello"] });
  assertWordsNear(words, [
    { text: "hello", start: start + 0.2, end: start + 0.9 },
    { text: "world", start: start + 0.9, end: start + 1.5 },
  ]);
});

test("silence decodes to no words", async () => {
  const words = await engine.transcribe({ start: 3, samples: new Float32Array(SAMPLE_RATE) }, { language: "auto", signal });
  assert.deepEqual(words, []);
});

test("a language the model does not have fails the job with UNSUPPORTED_LANGUAGE", async () => {
  const samples = toneTrack(0.5, [{ hz: hz(WORLD), start: 0.1, end: 0.3 }]);
  await assert.rejects(
    engine.transcribe({ start: 0, samples }, { language: "de", signal }),
    (error: unknown) => error instanceof JobFailure && error.code === "UNSUPPORTED_LANGUAGE" && error.message.includes("en, fr"),
  );
  const words = await engine.transcribe({ start: 0, samples }, { language: "fr", signal });
  assert.deepEqual(
    words.map((w) => w.text),
    ["world"],
  );
});

test("an aborted signal stops transcription", async () => {
  const controller = new AbortController();
  controller.abort(new Error("job cancelled"));
  const samples = toneTrack(0.5, [{ hz: hz(WORLD), start: 0.1, end: 0.3 }]);
  await assert.rejects(engine.transcribe({ start: 0, samples }, { language: "en", signal: controller.signal }), /job cancelled/);
});

test("VAD + engine through transcribeAudio: real speech makes the segments, words land at absolute times", async () => {
  // Marker tones inside the spoken sentences: the speech makes the VAD segments, the tones make the words.
  const tone = (token: { bin: number }, at: number) => ({ hz: hz(token), start: at, end: at + 0.12 });
  const speech = await markedSpeech((first, second) => [tone(HEL, first.start + 0.6), tone(LO, first.start + 1.0), tone(WORLD, second.start + 0.8)]);
  const [first, second] = speech.sentences;
  const result = await transcribeAudio({ pcm: speech.pcm(), engine, language: "en", signal });
  assert.equal(result.segments.length, 2, "one VAD segment per sentence");
  const [one, two] = result.segments;
  assert.ok(one && two);
  assert.ok(one.start <= first.start + 0.6 && one.end >= first.start + 1.1, JSON.stringify({ one, first }));
  // Each word runs to the end of its own segment: nothing follows it there.
  assertWordsNear(result.words, [
    { text: "hello", start: first.start + 0.6, end: one.end },
    { text: "world", start: second.start + 0.8, end: two.end },
  ]);
});

test("an install whose model file was damaged after download is refused before onnxruntime sees it", async () => {
  const dir = join(root, "damaged");
  await installTinyCtcModel(join(dir, "tiny-tone-ctc"), [HEL, LO, WORLD]);
  await truncate(join(dir, "tiny-tone-ctc", "model.onnx"), 200);
  await assert.rejects(loadSherpaEngine({ modelDir: dir }), (error: unknown) => {
    assert.ok(error instanceof ModelVerificationError);
    assert.match(error.message, /model\.onnx: 200 bytes, expected \d+/);
    return true;
  });
});

test("no installed model: null, so the caller can fall back", async () => {
  assert.equal(await loadSherpaEngine({ modelDir: join(root, "empty") }), null);
  await assert.rejects(loadSherpaEngine({ modelDir, model: "parakeet-tdt-0.6b-v3-int8" }), /not installed/);
});
