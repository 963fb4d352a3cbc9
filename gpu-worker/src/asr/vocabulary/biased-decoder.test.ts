// Biasing pocketsphinx toward a job's terms through libpocketsphinx (koffi), in a decoder process of its own.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { decodePcm16kMono } from "../../media/audio-pcm.ts";
import { descendantProcesses } from "../../testing/process-tree.ts";
import { composeSpeech, type SpeechFixture } from "../../testing/speech-fixtures.ts";
import { createPocketsphinxEngine, DEFAULT_POCKETSPHINX_MODEL_DIR } from "../pocketsphinx-engine.ts";
import type { SpeechSegment } from "../speech-engine.ts";
import { loadPronouncingDictionary } from "./cmu-dictionary.ts";
import { planBias } from "./pocketsphinx-bias.ts";

let fixture: SpeechFixture;
let segment: SpeechSegment;
before(async () => {
  fixture = await composeSpeech([{ text: "We deploy the new service on Kubernetes with Grafana dashboards every morning.", silenceBefore: 0.3 }]);
  const chunks: Float32Array[] = [];
  for await (const chunk of decodePcm16kMono(fixture.path)) chunks.push(chunk);
  const samples = new Float32Array(chunks.reduce((n, c) => n + c.length, 0));
  chunks.reduce((offset, chunk) => (samples.set(chunk, offset), offset + chunk.length), 0);
  segment = { start: 0, samples };
});
after(() => fixture.dispose());

const commandLine = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
};
/** User + system CPU ticks a process has used. */
const cpuTicks = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
};
const biasedDecoders = () => descendantProcesses(process.pid).filter((p) => commandLine(p.pid).includes("biased-decoder-process.ts"));

test("the plan adds pronunciations for unknown words, only raises known ones, and names terms it cannot pronounce", async () => {
  const dictionary = await loadPronouncingDictionary(`${DEFAULT_POCKETSPHINX_MODEL_DIR}/cmudict-en-us.dict`);
  const plan = await planBias(["Kubernetes", "Zhang Wei", "bread", "北京"], dictionary);
  const kubernetes = plan.words.find((w) => w.key === "kubernetes");
  assert.ok(kubernetes && kubernetes.pronunciations.length >= 1, "flite's t2p and espeak-ng pronounce it");
  assert.deepEqual(plan.words.find((w) => w.key === "bread")?.pronunciations, [], "a dictionary word only gets raised");
  assert.deepEqual(plan.notBiased.map((n) => n.term), ["北京"]);
  assert.match(plan.notBiased[0]!.reason, /no pronunciation/);
});

test("a vocabulary biases recognition toward its terms, in a decoder process of its own that the engine stops", async () => {
  const engine = createPocketsphinxEngine();
  const signal = new AbortController().signal;
  try {
    const plain = (await engine.transcribe(segment, { language: "en", signal })).map((w) => w.text);
    assert.ok(!plain.includes("kubernetes") && !plain.includes("grafana"), plain.join(" "));
    assert.deepEqual(biasedDecoders(), [], "a job without vocabulary never starts one");

    const biased = await engine.transcribe(segment, { language: "en", signal, vocabulary: ["Kubernetes", "Grafana"] });
    const texts = biased.map((w) => w.text);
    assert.ok(texts.includes("kubernetes") && texts.includes("grafana"), texts.join(" "));
    assert.ok(biased.every((w) => w.confidence !== undefined && w.confidence >= 0 && w.confidence <= 1));
    const decoders = biasedDecoders();
    assert.equal(decoders.length, 1);
    // The same vocabulary reuses its decoder.
    await engine.transcribe(segment, { language: "en", signal, vocabulary: ["Grafana", "Kubernetes"] });
    assert.deepEqual(biasedDecoders().map((p) => p.pid), decoders.map((p) => p.pid));
  } finally {
    await engine.close();
  }
  assert.deepEqual(biasedDecoders(), []);
});

test("a cancel stops the biased decoder midway; the next segment starts a fresh one", async () => {
  const engine = createPocketsphinxEngine();
  try {
    const long = new Float32Array(segment.samples.length * 6);
    for (let i = 0; i < 6; i++) long.set(segment.samples, i * segment.samples.length);
    const vocabulary = ["Kubernetes"];
    await engine.transcribe(segment, { language: "en", signal: new AbortController().signal, vocabulary });
    const controller = new AbortController();
    const first = biasedDecoders().map((p) => p.pid);
    const idleTicks = cpuTicks(first[0]!);
    const decoding = engine.transcribe({ start: 0, samples: long }, { language: "en", signal: controller.signal, vocabulary });
    // Cancel once the decoder is at work on the long utterance.
    while (cpuTicks(first[0]!) === idleTicks) await sleep(20);
    controller.abort(new Error("job canceled"));
    await assert.rejects(decoding, /job canceled/);
    const again = await engine.transcribe(segment, { language: "en", signal: new AbortController().signal, vocabulary });
    assert.ok(again.some((w) => w.text === "kubernetes"));
    assert.ok(!biasedDecoders().some((p) => first.includes(p.pid)), "the stopped decoder is gone");
  } finally {
    await engine.close();
  }
});

test("twenty terms decode safely (adding them to the loaded language model instead crashed from the sixth or so)", async () => {
  const engine = createPocketsphinxEngine();
  const vocabulary = ["Kubernetes", "Grafana", "Siobhan", "Tailscale", "Okonkwo", "Supabase", "Zhang Wei", "Figma", "Nguyen", "Vercel", "Kowalczyk", "Duolingo", "Svelte", "Nakamura", "Xiaomi", "Terraform", "Anselmo", "Postgres", "Ljubljana", "Oaxaca"];
  try {
    for (let i = 0; i < 3; i++) {
      const texts = (await engine.transcribe(segment, { language: "en", signal: new AbortController().signal, vocabulary })).map((w) => w.text);
      assert.ok(texts.includes("kubernetes") && texts.includes("grafana"), texts.join(" "));
    }
  } finally {
    await engine.close();
  }
});
