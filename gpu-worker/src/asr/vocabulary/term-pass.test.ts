// A job's vocabulary on pocketsphinx: a second pass per segment on a grammar of the heard words with the terms as
// alternatives, run by the pocketsphinx_batch program (no library bound in-process).
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
import { MAX_ALTERNATIVES, termGrammar } from "./term-grammar.ts";

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

const dictionary = () => loadPronouncingDictionary(`${DEFAULT_POCKETSPHINX_MODEL_DIR}/cmudict-en-us.dict`);
const commandLine = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
};
const secondPasses = () => descendantProcesses(process.pid).filter((p) => commandLine(p.pid).includes("-fsg"));

test("the plan adds pronunciations for unknown words, keeps the dictionary's for known ones, and names terms it cannot pronounce", async () => {
  const plan = await planBias(["Kubernetes", "Zhang Wei", "bread", "北京"], await dictionary());
  const kubernetes = plan.words.find((w) => w.key === "kubernetes");
  assert.ok(kubernetes && kubernetes.pronunciations.length >= 1, "flite's t2p and espeak-ng pronounce it");
  assert.deepEqual(plan.words.find((w) => w.key === "bread")?.pronunciations, [], "a dictionary word keeps the dictionary's");
  assert.deepEqual(plan.terms, [["kubernetes"], ["zhang", "wei"], ["bread"]]);
  assert.deepEqual(plan.notBiased.map((n) => n.term), ["北京"]);
  assert.match(plan.notBiased[0]!.reason, /no pronunciation/);
});

test("the grammar offers a term for runs of heard words about as long as it, never for the term itself, and stays small for any vocabulary", async () => {
  const words = await dictionary();
  const plan = await planBias(["Kubernetes"], words);
  const grammar = termGrammar(["on", "cooper", "needs", "with", "a"], plan, words)!;
  assert.match(grammar.fsg, /^TRANSITION 1 3 0\.5 kubernetes$/m, "cooper needs may be kubernetes");
  assert.doesNotMatch(grammar.fsg, /TRANSITION 4 5 0\.5 kubernetes/, "'a' is far too short to be kubernetes");
  assert.match(grammar.dictionary, /^cooper K UW P ER$/m);
  assert.match(grammar.dictionary, /^kubernetes [A-Z ]+$/m);
  assert.equal(termGrammar(["we", "kubernetes"], plan, words)?.fsg.includes("0.5 kubernetes") ?? false, false, "a term already heard needs no alternative");
  assert.equal(termGrammar([], plan, words), null);

  // The schema's worst vocabulary: 100 terms of 25 one-letter words, on words that sound like them.
  const letters = Array.from({ length: 100 }, (_, i) => Array.from({ length: 25 }, (_, j) => ((i >> j % 7) & 1 ? "a" : "w")).join(" "));
  const worst = termGrammar(Array.from({ length: 60 }, (_, i) => (i % 3 ? "a" : "w")), await planBias(letters, words), words)!;
  assert.equal(worst.alternatives, MAX_ALTERNATIVES);
  assert.ok(worst.fsg.split("\n").length <= 60 + MAX_ALTERNATIVES * 25 + 6, "one transition per heard word and per word of each alternative");
});

test("a vocabulary brings its terms in on a second pass that ends with each segment; a plain job runs none", async () => {
  const engine = createPocketsphinxEngine();
  const signal = new AbortController().signal;
  try {
    const plain = (await engine.transcribe(segment, { language: "en", signal })).map((w) => w.text);
    assert.ok(!plain.includes("kubernetes") && !plain.includes("grafana"), plain.join(" "));

    const biased = await engine.transcribe(segment, { language: "en", signal, vocabulary: ["Kubernetes", "Grafana"] });
    const texts = biased.map((w) => w.text);
    assert.ok(texts.includes("kubernetes") && texts.includes("grafana"), texts.join(" "));
    assert.ok(biased.every((w) => w.confidence !== undefined && w.confidence >= 0 && w.confidence <= 1), "every word keeps a confidence");
    assert.ok(biased.every((w, i) => w.start < w.end && (i === 0 || w.start >= biased[i - 1]!.end - 1e-9)), "words in order");
    assert.deepEqual(secondPasses(), []);
  } finally {
    await engine.close();
  }
});

test("a cancel kills the second pass midway; the next segment decodes", async () => {
  const engine = createPocketsphinxEngine();
  try {
    // Four times the sentence: a long grammar, so the second pass is still at work when it is seen.
    const long = new Float32Array(segment.samples.length * 4);
    for (let i = 0; i < 4; i++) long.set(segment.samples, i * segment.samples.length);
    const vocabulary = ["Kubernetes", "Grafana"];
    const controller = new AbortController();
    const decoding = engine.transcribe({ start: 0, samples: long }, { language: "en", signal: controller.signal, vocabulary });
    let seen = secondPasses();
    while (seen.length === 0) {
      await Promise.race([decoding.then(() => assert.fail("the long segment ended before its second pass was seen")), sleep(10)]);
      seen = secondPasses();
    }
    controller.abort(new Error("job canceled"));
    await assert.rejects(decoding, /job canceled/);
    assert.deepEqual(secondPasses(), [], "the second pass is gone once the segment has failed");
    const again = await engine.transcribe(segment, { language: "en", signal: new AbortController().signal, vocabulary });
    assert.ok(again.some((w) => w.text === "kubernetes"));
  } finally {
    await engine.close();
  }
});

test("twenty terms still bring in the two spoken", async () => {
  const engine = createPocketsphinxEngine();
  const vocabulary = ["Kubernetes", "Grafana", "Siobhan", "Tailscale", "Okonkwo", "Supabase", "Zhang Wei", "Figma", "Nguyen", "Vercel", "Kowalczyk", "Duolingo", "Svelte", "Nakamura", "Xiaomi", "Terraform", "Anselmo", "Postgres", "Ljubljana", "Oaxaca"];
  try {
    const texts = (await engine.transcribe(segment, { language: "en", signal: new AbortController().signal, vocabulary })).map((w) => w.text);
    assert.ok(texts.includes("kubernetes") && texts.includes("grafana"), texts.join(" "));
    assert.ok(!texts.some((t) => ["siobhan", "tailscale", "figma", "svelte", "postgres", "terraform"].includes(t)), `no term that was not said: ${texts.join(" ")}`);
  } finally {
    await engine.close();
  }
});
