import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { JobFailure } from "@caption/shared/errors/codes";
import { decodePcm16kMono } from "../media/audio-pcm.ts";
import { createPocketsphinxEngine } from "./pocketsphinx-engine.ts";
import { descendantProcesses, isRunning } from "../testing/process-tree.ts";
import { composeSpeech, type SpeechFixture } from "../testing/speech-fixtures.ts";
import { SAMPLE_RATE, type SpeechSegment } from "./speech-engine.ts";
import { wordErrorRate } from "../testing/word-error-rate.ts";

let fixture: SpeechFixture;
let audio: Float32Array;
before(async () => {
  fixture = await composeSpeech([
    { text: "Welcome to the show. Today we talk about the weather.", silenceBefore: 0.8 },
    { text: "Please remember to turn off the lights when you leave the room.", silenceBefore: 1.5 },
  ]);
  const chunks: Float32Array[] = [];
  for await (const chunk of decodePcm16kMono(fixture.path)) chunks.push(chunk);
  audio = new Float32Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    audio.set(chunk, offset);
    offset += chunk.length;
  }
});
after(() => fixture.dispose());

function cut(start: number, end: number): SpeechSegment {
  const from = Math.round(start * SAMPLE_RATE);
  return { start: from / SAMPLE_RATE, samples: audio.slice(from, Math.round(end * SAMPLE_RATE)) };
}

function pocketsphinxProcesses(): number[] {
  return descendantProcesses(process.pid)
    .filter((p) => p.name.startsWith("pocketsphinx"))
    .map((p) => p.pid);
}

test("transcribes each segment with absolute, ordered word times inside it, in one long-lived process", async () => {
  const engine = createPocketsphinxEngine();
  const signal = new AbortController().signal;
  try {
    const seen = new Set<number>();
    for (const sentence of fixture.sentences) {
      const segment = cut(sentence.start - 0.2, sentence.end + 0.2);
      const words = await engine.transcribe(segment, { language: "en", signal });
      for (const pid of pocketsphinxProcesses()) seen.add(pid);
      const segmentEnd = segment.start + segment.samples.length / SAMPLE_RATE;
      let previousEnd = segment.start;
      for (const word of words) {
        assert.ok(word.start >= previousEnd && word.end >= word.start && word.end <= segmentEnd, JSON.stringify(word));
        // The engine's own figure: each word's posterior in the lattice.
        assert.ok(word.confidence !== undefined && word.confidence >= 0 && word.confidence <= 1, JSON.stringify(word));
        assert.match(word.text, /^[a-z']+$/);
        previousEnd = word.end;
      }
      // The speech itself lies inside the clip; flite leaves ~0.1 s of silence at its edges.
      assert.ok(words[0]!.start >= sentence.start - 0.05 && words.at(-1)!.end <= sentence.end + 0.05);
      // Measured: WER 0 on both sentences (pocketsphinx 0.8+5prealpha, pocketsphinx-en-us, flite slt).
      const wer = wordErrorRate(sentence.text, words.map((w) => w.text).join(" "));
      assert.ok(wer <= 0.35, `WER ${wer} for "${words.map((w) => w.text).join(" ")}"`);
    }
    // The models load once per engine, not once per segment.
    assert.equal(seen.size, 1);
  } finally {
    await engine.close();
  }
  assert.deepEqual(pocketsphinxProcesses(), []);
});

test("abort kills the decoder while a segment is in flight; the next call starts a fresh one", async () => {
  const engine = createPocketsphinxEngine();
  try {
    // The whole fixture three times over: long enough to still be decoding when the abort lands.
    const long = new Float32Array(audio.length * 3);
    for (let i = 0; i < 3; i++) long.set(audio, i * audio.length);
    const controller = new AbortController();
    const reason = new Error("job canceled");
    const decoding = engine.transcribe({ start: 0, samples: long }, { language: "en", signal: controller.signal });
    let running = pocketsphinxProcesses();
    while (running.length === 0) {
      await sleep(5);
      running = pocketsphinxProcesses();
    }
    controller.abort(reason);
    await assert.rejects(decoding, (error) => error === reason);
    for (const pid of running) assert.equal(isRunning(pid), false, `pocketsphinx ${pid} survived the abort`);

    const sentence = fixture.sentences[0]!;
    const words = await engine.transcribe(cut(sentence.start, sentence.end), { language: "en", signal: new AbortController().signal });
    assert.ok(wordErrorRate(sentence.text, words.map((w) => w.text).join(" ")) <= 0.35);
  } finally {
    await engine.close();
  }
});

test("an already aborted signal starts nothing", async () => {
  const engine = createPocketsphinxEngine();
  try {
    const reason = new Error("gone");
    await assert.rejects(engine.transcribe(cut(0, 1), { language: "en", signal: AbortSignal.abort(reason) }), (e) => e === reason);
    assert.deepEqual(pocketsphinxProcesses(), []);
  } finally {
    await engine.close();
  }
});

test("English only", async () => {
  const engine = createPocketsphinxEngine();
  try {
    assert.deepEqual(engine.languages, ["en"]);
    assert.equal(engine.detectsLanguage, false);
    await assert.rejects(
      engine.transcribe(cut(0, 1), { language: "de", signal: new AbortController().signal }),
      (error) => error instanceof JobFailure && error.code === "UNSUPPORTED_LANGUAGE",
    );
  } finally {
    await engine.close();
  }
});

test("a missing binary or model says what to install", () => {
  assert.throws(() => createPocketsphinxEngine({ binary: "/nonexistent/pocketsphinx_batch" }), /binary .* is missing \(install the Debian package pocketsphinx\)/);
  assert.throws(() => createPocketsphinxEngine({ modelDir: "/nonexistent" }), /model file .* is missing \(install the Debian package pocketsphinx-en-us\)/);
});
