// SenseVoice through sherpa-onnx-node, without its weights: a tiny hand-weighted model built here
// (tiny-sense-voice-model.ts) is installed under the manifest's SenseVoice entry and loaded by the
// worker. It proves the configuration the worker gives (language input, text normalisation on, the
// 80-bin fbank with 7-frame stacking the metadata asks for), the language tag coming back and the
// worker reading it, and word times on SenseVoice's 60 ms frames; not accuracy or speed.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pino } from "pino";
import { JobFailure } from "@caption/shared/errors/codes";
import { markedSpeech } from "../../testing/marked-speech.ts";
import { installTinySenseVoiceModel } from "../../testing/tiny-sense-voice-model.ts";
import { kaldiMelBinCentreHz, toneTrack, type Tone } from "../../testing/tones.ts";
import { loadSpeechEngine } from "../engine-registry.ts";
import { SAMPLE_RATE, type SpeechEngine } from "../speech-engine.ts";
import { transcribeAudio } from "../transcribe-audio.ts";
import { findInstalledModels } from "./model-files.ts";
import { readManifest } from "./model-manifest.ts";
import { recognizerConfig } from "./recognizer-config.ts";
import { loadSherpaAsr, parseRecognitionResult } from "./sherpa-native.ts";

const HELLO = { piece: "▁hello", bin: 56 };
const WORLD = { piece: "▁world", bin: 62 };
// One sound, written as digits with text normalisation and as a word without.
const TWENTY = { piece: "▁twenty", bin: 68, textNorm: "without" as const };
const DIGITS = { piece: "▁20", bin: 68, textNorm: "with" as const };
const LANGUAGE_TONES = { en: 74, zh: 50 };
const tone = (bin: number, start: number, end: number): Tone => ({ hz: kaldiMelBinCentreHz(bin), start, end });
/** SenseVoice's output frames are 60 ms (6 fbank frames stacked 7 at a time). */
const FRAME = 0.06;

let root: string;
let modelDir: string;
let engine: SpeechEngine;
const signal = new AbortController().signal;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "sherpa-sense-voice-"));
  modelDir = join(root, "models");
  const senseVoice = (await readManifest()).models.find((m) => m.family === "sense-voice");
  assert.ok(senseVoice, "the manifest's SenseVoice entry");
  await installTinySenseVoiceModel(join(modelDir, senseVoice.name), [HELLO, WORLD, TWENTY, DIGITS], { as: senseVoice, languageTones: LANGUAGE_TONES });
  engine = await loadSpeechEngine({ engine: "sherpa-onnx", modelDir, logger: pino({ level: "silent" }) });
});

after(async () => {
  await engine.close();
  await rm(root, { recursive: true, force: true });
});

const spoken = (languageBin?: number) =>
  toneTrack(2, [
    ...(languageBin === undefined ? [] : [tone(languageBin, 0.05, 0.2)]),
    tone(HELLO.bin, 0.3, 0.45),
    tone(WORLD.bin, 0.8, 1.0),
    tone(TWENTY.bin, 1.4, 1.55),
  ]);

async function heard(samples: Float32Array, language: string, start = 0) {
  const languages: string[] = [];
  const words = await engine.transcribe({ start, samples }, { language, signal, onLanguage: (code) => languages.push(code) });
  return { words, languages };
}

test("the manifest's SenseVoice entry loads through sherpa-onnx; it detects languages and takes no vocabulary", () => {
  assert.equal(engine.model, "sense-voice-zh-en-ja-ko-yue-2024-07-17-int8");
  assert.equal(engine.detectsLanguage, true);
  assert.equal(engine.biasing, false);
  assert.deepEqual(engine.languages, ["zh", "en", "ja", "ko", "yue"]);
});

test("auto: the language tag the model emits is the language the worker reports; words land on 60 ms frames", async () => {
  const start = 4;
  const en = await heard(spoken(LANGUAGE_TONES.en), "auto", start);
  assert.deepEqual(en.languages, ["en"]);
  assert.deepEqual(
    en.words.map((w) => w.text),
    ["hello", "world", "20"],
    "text normalisation is asked for: the number comes out in digits",
  );
  // Without durations a word runs to the next one, the last to the segment's end.
  const [hello, world, twenty] = en.words;
  assert.ok(hello && world && twenty);
  for (const [word, at] of [[hello, 0.3], [world, 0.8], [twenty, 1.4]] as const) {
    assert.ok(Math.abs(word.start - (start + at)) <= FRAME, JSON.stringify(word));
  }
  assert.deepEqual([hello.end, world.end, twenty.end], [world.start, twenty.start, start + 2]);

  assert.deepEqual((await heard(spoken(LANGUAGE_TONES.zh), "auto")).languages, ["zh"]);
  // <|nospeech|> names no language: nothing is reported.
  assert.deepEqual((await heard(spoken(), "auto")).languages, []);
});

test("a language hint reaches the model's language input and comes back as its tag", async () => {
  const ja = await heard(spoken(LANGUAGE_TONES.zh), "ja");
  assert.deepEqual(ja.languages, ["ja"]);
  assert.deepEqual(
    ja.words.map((w) => w.text),
    ["hello", "world", "20"],
  );
  await assert.rejects(heard(spoken(), "fr"), (error: unknown) => error instanceof JobFailure && error.code === "UNSUPPORTED_LANGUAGE");
});

test("the text-normalisation input is what writes digits: the same model without it writes the word", async () => {
  const [installed] = await findInstalledModels(modelDir);
  assert.ok(installed);
  const config = recognizerConfig(installed, { language: "auto", numThreads: 1, provider: "cpu" });
  assert.equal(config.modelConfig.senseVoice?.useInverseTextNormalization, 1, "the worker asks for it");
  const { senseVoice } = config.modelConfig;
  assert.ok(senseVoice);
  const withoutItn = { ...config, modelConfig: { ...config.modelConfig, senseVoice: { ...senseVoice, useInverseTextNormalization: 0 as const } } };
  const recognizer = await loadSherpaAsr().OfflineRecognizer.createAsync(withoutItn);
  const stream = recognizer.createStream();
  stream.acceptWaveform({ samples: spoken(LANGUAGE_TONES.en), sampleRate: SAMPLE_RATE });
  const { tokens, lang } = parseRecognitionResult(await recognizer.decodeAsync(stream));
  assert.deepEqual(
    tokens.map((t) => t.trim()),
    ["hello", "world", "twenty"],
  );
  assert.equal(lang, "<|en|>");
});

test("VAD + engine through transcribeAudio: the transcript's language is the one the model heard", async () => {
  const speech = await markedSpeech((first, second) => [
    tone(LANGUAGE_TONES.en, first.start + 0.3, first.start + 0.45),
    tone(HELLO.bin, first.start + 0.8, first.start + 0.95),
    tone(WORLD.bin, second.start + 0.8, second.start + 0.95),
  ]);
  const [first, second] = speech.sentences;
  const result = await transcribeAudio({ pcm: speech.pcm(), engine, language: "auto", signal });
  assert.equal(result.segments.length, 2, "one VAD segment per sentence");
  assert.deepEqual(
    result.words.map((w) => w.text),
    ["hello", "world"],
  );
  // The first segment said <|en|>, the second <|nospeech|> (no language tone): English it is.
  assert.equal(result.language, "en");
  for (const [word, at] of [[result.words[0], first.start + 0.8], [result.words[1], second.start + 0.8]] as const) {
    assert.ok(word && Math.abs(word.start - at) <= FRAME + 0.02, JSON.stringify({ word, at }));
  }
});
