// The default neural path, without its weights: a tiny NeMo TDT transducer built here
// (tiny-transducer-model.ts) is installed under the manifest's name and file layout for Parakeet TDT
// 0.6B v3, loaded by the worker's engine registry and decoded by sherpa-onnx-node through exactly the
// configuration production uses (nemo_transducer, the 128-bin front end its metadata asks for, greedy
// TDT decoding, token durations), then through modified beam search with hotwords. It proves the
// plumbing, not accuracy or speed: those need the real model (see docs/speech-recognition.md).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pino } from "pino";
import type { Word } from "@caption/shared/api/transcript";
import { markedSpeech } from "../../testing/marked-speech.ts";
import { installTinyTransducerModel, TDT_MEL_BINS } from "../../testing/tiny-transducer-model.ts";
import { melBinCentreHz, toneTrack, type Tone } from "../../testing/tones.ts";
import { loadSpeechEngine } from "../engine-registry.ts";
import type { SpeechEngine } from "../speech-engine.ts";
import { transcribeAudio } from "../transcribe-audio.ts";
import { readManifest } from "./model-manifest.ts";
import { biasingOutcome } from "../vocabulary/biasing-outcome.ts";
import { defaultPhoneticLexicon } from "../vocabulary/phonetic-lexicon.ts";
import { createWordPass } from "../../words/word-pass.ts";

// High mel bands, 6 bins apart: flite's speech has no narrow peaks there, and no tone fires a neighbour.
const HEL = { piece: "▁hel", bin: 96, duration: 2 };
const LO = { piece: "lo", bin: 102, duration: 3 };
const WORLD = { piece: "▁world", bin: 108, duration: 4 };
// "▁cat" and "▁kat" sound alike: on one bin, "▁kat" one nat behind. Only a hotword tips it.
const CAT = { piece: "▁cat", bin: 114, duration: 1 };
const KAT = { piece: "▁kat", bin: 114, duration: 1, offset: -1 };
const HY = { piece: "hy", bin: 120, duration: 2 };
const FRAME = 0.08;
const tone = (token: { bin: number }, start: number, end: number): Tone => ({ hz: melBinCentreHz(token.bin, TDT_MEL_BINS), start, end });

// Each tone starts 20 ms into an 80 ms encoder frame, so the frame that hears it first is certain.
const SPOKEN = [tone(HEL, 0.26, 0.4), tone(LO, 0.5, 0.62), tone(WORLD, 0.98, 1.2), tone(CAT, 1.46, 1.58), tone(HY, 1.7, 1.84)];
/** Where each word starts (its first piece's frame) and ends (its last piece's frame + that piece's duration). */
const HEARD: Word[] = [
  { text: "hello", start: 3 * FRAME, end: 6 * FRAME + LO.duration * FRAME },
  { text: "world", start: 12 * FRAME, end: 12 * FRAME + WORLD.duration * FRAME },
  { text: "cathy", start: 18 * FRAME, end: 21 * FRAME + HY.duration * FRAME },
];

let root: string;
let engine: SpeechEngine;
const signal = new AbortController().signal;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "sherpa-transducer-"));
  const parakeet = (await readManifest()).models.find((m) => m.name === "parakeet-tdt-0.6b-v3-int8");
  assert.ok(parakeet, "the manifest's default model");
  await installTinyTransducerModel(join(root, "models", parakeet.name), [HEL, LO, WORLD, CAT, KAT, HY], { as: parakeet });
  engine = await loadSpeechEngine({ engine: "auto", modelDir: join(root, "models"), logger: pino({ level: "silent" }) });
});

after(async () => {
  await engine.close();
  await rm(root, { recursive: true, force: true });
});

const texts = (words: readonly Word[]) => words.map((w) => w.text);
const shifted = (words: readonly Word[], by: number) => words.map((w) => ({ ...w, start: w.start + by, end: w.end + by }));

function assertWords(actual: readonly Word[], expected: readonly Word[]): void {
  assert.deepEqual(texts(actual), texts(expected));
  for (const [i, word] of actual.entries()) {
    const want = expected[i];
    assert.ok(want);
    assert.ok(Math.abs(word.start - want.start) < 1e-6 && Math.abs(word.end - want.end) < 1e-6, `${JSON.stringify(word)}, expected ${JSON.stringify(want)}`);
  }
}

test("auto loads the installed Parakeet TDT layout through sherpa-onnx, with biasing", () => {
  assert.equal(engine.name, "sherpa-onnx");
  assert.equal(engine.model, "parakeet-tdt-0.6b-v3-int8");
  assert.equal(engine.detectsLanguage, true);
  assert.equal(engine.biasing, true);
  assert.ok(engine.languages.includes("en") && engine.languages.includes("uk"));
});

test("tones decode to pieces, words start at their first piece's frame and end where the last piece's TDT duration says", async () => {
  const start = 7.5;
  const words = await engine.transcribe({ start, samples: toneTrack(2.2, SPOKEN) }, { language: "auto", signal });
  // "hello" ends at 0.72 s, well before "world" starts: the duration, not the next word, ends it.
  assertWords(words, shifted(HEARD, start));
});

test("a language hint on a model that hears the language itself decodes the same", async () => {
  const words = await engine.transcribe({ start: 0, samples: toneTrack(2.2, SPOKEN) }, { language: "de", signal });
  assertWords(words, HEARD);
});

test("hotwords: the vocabulary tips a near-tie toward a piece sequence the model would not emit", async () => {
  const samples = toneTrack(2.2, SPOKEN);
  const kathy = await engine.transcribe({ start: 0, samples }, { language: "auto", signal, vocabulary: ["Kathy"] });
  assertWords(kathy, [HEARD[0]!, HEARD[1]!, { ...HEARD[2]!, text: "kathy" }]);

  // Per stream: a job without vocabulary, decoded between two with one, is not biased.
  const plain = await engine.transcribe({ start: 0, samples }, { language: "auto", signal });
  assertWords(plain, HEARD);
  const again = await engine.transcribe({ start: 0, samples }, { language: "auto", signal, vocabulary: ["kathy"] });
  assert.deepEqual(texts(again), ["hello", "world", "kathy"]);

  // Terms the model never hears change nothing; terms it cannot spell are left out; text that would
  // break sherpa-onnx's hotword parser (":" starts a score, "/" splits phrases) is cleaned first.
  for (const vocabulary of [["world"], ["zebra"], ["cat/hy"], [":::", " "], [":Kathy", "kat/zz"]]) {
    const words = await engine.transcribe({ start: 0, samples }, { language: "auto", signal, vocabulary });
    assert.deepEqual(texts(words), vocabulary[0] === ":Kathy" ? ["hello", "world", "kathy"] : ["hello", "world", "cathy"], JSON.stringify(vocabulary));
  }
});

test("VAD + engine through transcribeAudio: speech makes the segments, tones the words, durations their ends", async () => {
  const speech = await markedSpeech((first, second) => [
    tone(HEL, first.start + 0.6, first.start + 0.72),
    tone(LO, first.start + 0.9, first.start + 1.0),
    tone(WORLD, second.start + 0.8, second.start + 1.0),
  ]);
  const [first] = speech.sentences;
  const result = await transcribeAudio({ pcm: speech.pcm(), engine, language: "auto", signal });
  assert.equal(result.segments.length, 2, "one VAD segment per sentence");
  const [one, two] = result.segments;
  assert.ok(one && two);
  assert.deepEqual(texts(result.words), ["hello", "world"]);
  const [hello, world] = result.words;
  assert.ok(hello && world);
  // A word starts in the encoder frame (80 ms of the segment) that first hears its first tone.
  const frameOf = (segmentStart: number, at: number) => segmentStart + Math.floor((at - segmentStart + 0.015) / FRAME) * FRAME;
  assert.ok(Math.abs(hello.start - frameOf(one.start, first.start + 0.6)) <= FRAME + 1e-6, JSON.stringify({ hello, one }));
  assert.ok(Math.abs(hello.end - (frameOf(one.start, first.start + 0.9) + LO.duration * FRAME)) <= FRAME + 1e-6, JSON.stringify({ hello, one }));
  assert.ok(Math.abs(world.end - world.start - WORLD.duration * FRAME) < 1e-6, JSON.stringify(world));
  assert.ok(hello.end < two.start && world.end < two.end, "the words end by their durations, not at their segment's end");
});

test("a job's vocabulary on the transducer: its hotwords, then the post-pass writes the term as the customer did; confidences from ys_log_probs", async () => {
  const samples = toneTrack(2.2, SPOKEN);
  const vocabulary = ["Kathy"];
  const words = await engine.transcribe({ start: 0, samples }, { language: "auto", signal, vocabulary });
  assert.deepEqual(texts(words), ["hello", "world", "kathy"], "the hotword reached the decoder");
  for (const word of words) assert.ok(word.confidence !== undefined && word.confidence > 0 && word.confidence <= 1, JSON.stringify(word));
  const pass = await createWordPass({ vocabulary, replacements: {}, profanity: "keep" }, await defaultPhoneticLexicon(), { seconds: 2.2, signal });
  const passed = await pass(words).finally(() => pass.close());
  assert.deepEqual(texts(passed), ["hello", "world", "Kathy"]);
  assert.deepEqual(passed[2], { ...words[2]!, text: "Kathy", original: "kathy", vocabulary: true });
  const outcome = await biasingOutcome(engine, vocabulary, await defaultPhoneticLexicon());
  assert.match(outcome.biasing, /hotwords with modified beam search/);
  assert.deepEqual(outcome.not_biased, []);
});
