import assert from "node:assert/strict";
import { test } from "node:test";
import { FAMILY_ROLES, ManifestError, parseManifest, readManifest, type ModelSpec } from "./model-manifest.ts";

test("the recommended model's download is pinned by sha256 and size, so installing it needs no trust on first use", async () => {
  const [recommended] = (await readManifest()).models;
  assert.ok(recommended?.archive);
  assert.match(recommended.archive.sha256 ?? "", /^[0-9a-f]{64}$/);
  assert.ok((recommended.archive.size ?? 0) > 0);
});

test("the shipped manifest is valid and every model is fetched from an upstream https release", async () => {
  const manifest = await readManifest();
  assert.ok(manifest.models.length >= 1);
  for (const model of manifest.models) {
    assert.deepEqual(new Set(model.files.map((f) => f.role)), new Set(FAMILY_ROLES[model.family]), model.name);
    for (const url of [model.archive?.url, ...model.files.map((f) => f.url)].filter((u) => u !== undefined)) {
      assert.match(url, /^https:\/\//, model.name);
    }
  }
});

const tiny: ModelSpec = {
  name: "tiny",
  family: "nemo-transducer",
  description: "",
  license: "MIT",
  homepage: "https://example.org/",
  languages: ["en"],
  detectsLanguage: false,
  tokenTimestamps: true,
  files: [
    { role: "encoder", path: "encoder.onnx", url: "https://example.org/e" },
    { role: "decoder", path: "decoder.onnx", url: "https://example.org/d" },
    { role: "joiner", path: "joiner.onnx", url: "https://example.org/j" },
    { role: "tokens", path: "tokens.txt", url: "https://example.org/t" },
  ],
};

test("a model missing a file its family needs is refused", () => {
  assert.throws(() => parseManifest({ models: [{ ...tiny, files: tiny.files.slice(1) }] }), (e: unknown) => e instanceof ManifestError && /needs exactly one "encoder"/.test(e.message));
});

test("files without a url need an archive", () => {
  const files = tiny.files.map(({ url: _url, ...rest }) => rest);
  assert.throws(() => parseManifest({ models: [{ ...tiny, files }] }), /without an archive every file needs a url/);
});

test("malformed checksums, escaping paths and duplicate names are refused", () => {
  const withFile = (file: object) => ({ models: [{ ...tiny, files: [file, ...tiny.files.slice(1)] }] });
  assert.throws(() => parseManifest(withFile({ role: "encoder", path: "encoder.onnx", url: "https://x/e", sha256: "ABC" })), /invalid at \/models\/0\/files\/0\/sha256/);
  assert.throws(() => parseManifest(withFile({ role: "encoder", path: "../encoder.onnx", url: "https://x/e" })), /invalid at \/models\/0\/files\/0\/path/);
  assert.throws(() => parseManifest({ models: [tiny, tiny] }), /names tiny twice/);
});
