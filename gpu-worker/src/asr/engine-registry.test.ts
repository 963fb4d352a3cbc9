import assert from "node:assert/strict";
import { mkdtemp, rename, rm, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { pino } from "pino";
import { loadSpeechEngine } from "./engine-registry.ts";
import { cudaProviderShipped } from "./sherpa/sherpa-native.ts";
import { installTinyCtcModel } from "../testing/tiny-onnx-model.ts";
import { installTinySenseVoiceModel } from "../testing/tiny-sense-voice-model.ts";
import { installTinyTransducerModel } from "../testing/tiny-transducer-model.ts";
import { readManifest } from "./sherpa/model-manifest.ts";

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "engine-registry-"));
});
after(() => rm(root, { recursive: true, force: true }));

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: "info" }, stream), lines };
}

async function modelDirWithTinyModel(name: string): Promise<string> {
  const modelDir = join(root, name);
  await installTinyCtcModel(join(modelDir, "tiny-tone-ctc"), [{ piece: "▁a", bin: 40 }]);
  return modelDir;
}

test("auto picks sherpa-onnx when a verified model is installed, and logs engine and model", async () => {
  const { logger, lines } = capturingLogger();
  const engine = await loadSpeechEngine({ engine: "auto", modelDir: await modelDirWithTinyModel("installed"), logger });
  try {
    assert.equal(engine.name, "sherpa-onnx");
    assert.equal(engine.model, "tiny-tone-ctc");
    assert.ok(lines.some((l) => l.msg === "speech engine ready" && l.engine === "sherpa-onnx" && l.model === "tiny-tone-ctc"));
    assert.ok(!lines.some((l) => l.level === 40), "no fallback warning");
  } finally {
    await engine.close();
  }
});

test("auto falls back to pocketsphinx when no model is installed", async () => {
  const { logger, lines } = capturingLogger();
  const engine = await loadSpeechEngine({ engine: "auto", modelDir: join(root, "nothing-here"), logger });
  try {
    assert.equal(engine.name, "pocketsphinx");
    assert.ok(lines.some((l) => l.msg === "speech engine ready" && l.engine === "pocketsphinx"));
    // The newcomer's first start says what the fallback costs and how to get a neural model.
    const note = lines.find((l) => l.level === 40 && l.engine === "pocketsphinx");
    assert.match(String(note?.msg), /accuracy on real speech is low \(word error rate 0\.27-0\.31 .*\)\. .*`npm run models:download`/);
  } finally {
    await engine.close();
  }
});

test("auto falls back to pocketsphinx, loudly, when the installed model is damaged", async () => {
  const modelDir = await modelDirWithTinyModel("damaged");
  await truncate(join(modelDir, "tiny-tone-ctc", "model.onnx"), 50);
  const { logger, lines } = capturingLogger();
  const engine = await loadSpeechEngine({ engine: "auto", modelDir, logger });
  try {
    assert.equal(engine.name, "pocketsphinx");
    assert.ok(lines.some((l) => l.level === 50 && String(l.msg).includes("failed verification")));
  } finally {
    await engine.close();
  }
});

test("sherpa-onnx asked for explicitly fails start-up when no model is installed", async () => {
  const { logger } = capturingLogger();
  await assert.rejects(loadSpeechEngine({ engine: "sherpa-onnx", modelDir: join(root, "nothing-here"), logger }), /models:download/);
});

test("pocketsphinx asked for explicitly is used even with a model installed", async () => {
  const { logger } = capturingLogger();
  const engine = await loadSpeechEngine({ engine: "pocketsphinx", modelDir: await modelDirWithTinyModel("ignored"), logger });
  try {
    assert.equal(engine.name, "pocketsphinx");
  } finally {
    await engine.close();
  }
});

test("CUDA without a CUDA-capable sherpa-onnx build runs on the CPU and says so", async () => {
  const { logger, lines } = capturingLogger();
  const engine = await loadSpeechEngine({ engine: "sherpa-onnx", provider: "cuda", modelDir: await modelDirWithTinyModel("cuda"), logger });
  try {
    const loaded = lines.find((l) => l.msg === "speech recognizer loaded");
    const shipped = cudaProviderShipped();
    assert.equal(loaded?.provider, shipped ? "cuda" : "cpu");
    assert.equal(lines.some((l) => l.level === 40 && String(l.msg).includes("no CUDA provider")), !shipped);
  } finally {
    await engine.close();
  }
});

test("with several models installed, the first in manifest order is loaded, whatever the folders are called; a named one is used", async () => {
  const { models } = await readManifest();
  const spec = (family: string) => {
    const found = models.find((m) => m.family === family);
    assert.ok(found, family);
    return found;
  };
  const modelDir = join(root, "several");
  // Folder names sort the other way round from the manifest.
  await installTinyCtcModel(join(modelDir, "1-ctc"), [{ piece: "▁a", bin: 40 }], { name: spec("nemo-ctc").name });
  await installTinySenseVoiceModel(join(modelDir, "2-sense-voice"), [{ piece: "▁a", bin: 60 }], { as: spec("sense-voice") });
  await installTinyTransducerModel(join(modelDir, "3-parakeet"), [{ piece: "▁a", bin: 100, duration: 1 }], { as: spec("nemo-transducer") });
  const loaded = async (model?: string) => {
    const engine = await loadSpeechEngine({ engine: "auto", modelDir, logger: capturingLogger().logger, ...(model ? { model } : {}) });
    await engine.close();
    return engine.model;
  };

  assert.equal(await loaded(), "parakeet-tdt-0.6b-v3-int8");
  assert.equal(await loaded(spec("nemo-ctc").name), spec("nemo-ctc").name);
  await rename(join(modelDir, "3-parakeet"), join(root, "parakeet-removed"));
  assert.equal(await loaded(), spec("sense-voice").name, "SenseVoice comes before the CTC model in the manifest");
});
