// The models:download command, run as a real process against a local HTTP server that serves a
// .tar.bz2 built here from a tiny model (upstream cannot be reached from our machines).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, mkdtemp, readdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { execa } from "execa";
import { readInstallRecord } from "../asr/sherpa/model-files.ts";
import type { ModelSpec } from "../asr/sherpa/model-manifest.ts";
import { loadSherpaEngine } from "../asr/sherpa/sherpa-engine.ts";
import { runModelsDownload } from "../testing/models-download-cli.ts";
import { writeTinyCtcModel } from "../testing/tiny-onnx-model.ts";
import { melBinCentreHz, toneTrack } from "../testing/tones.ts";

const ROOT = "sherpa-onnx-tiny-tone-ctc";

let work: string;
let server: Server;
let origin: string;
const served = new Map<string, Buffer>();
const hits = new Map<string, number>();
let archive: { sha256: string; size: number };
let files: Record<string, { sha256: string; size: number; bytes: Buffer }>;

const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

before(async () => {
  work = await mkdtemp(join(tmpdir(), "models-download-"));
  const source = join(work, "source", ROOT);
  await mkdir(join(source, "test_wavs"), { recursive: true });
  await writeTinyCtcModel(source, [{ piece: "▁tone", bin: 60 }]);
  await writeFile(join(source, "test_wavs", "README"), "not installed: not in the manifest\n");
  const archivePath = join(work, "model.tar.bz2");
  await execa("tar", ["-cjf", archivePath, "-C", join(work, "source"), ROOT]);
  const archiveBytes = await readFile(archivePath);
  archive = { sha256: sha(archiveBytes), size: archiveBytes.length };
  served.set("/releases/tiny.tar.bz2", archiveBytes);
  files = {};
  for (const name of ["model.onnx", "tokens.txt"]) {
    const bytes = await readFile(join(source, name));
    files[name] = { sha256: sha(bytes), size: bytes.length, bytes };
    served.set(`/files/${name}`, bytes);
  }

  server = createServer((req, res) => {
    const path = req.url ?? "";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const body = served.get(path);
    if (!body) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(work, { recursive: true, force: true });
});

function spec(name: string, overrides: Partial<ModelSpec> = {}): ModelSpec {
  return {
    name,
    family: "nemo-ctc",
    description: "tiny tone model built by the test",
    license: "MIT",
    homepage: "https://example.org/",
    languages: ["en"],
    detectsLanguage: false,
    tokenTimestamps: true,
    archive: { url: `${origin}/releases/tiny.tar.bz2`, format: "tar.bz2", root: ROOT, sha256: archive.sha256, size: archive.size },
    files: [
      { role: "model", path: "model.onnx", sha256: files["model.onnx"]?.sha256 },
      { role: "tokens", path: "tokens.txt", sha256: files["tokens.txt"]?.sha256 },
    ],
    ...overrides,
  };
}

const download = (models: ModelSpec[], args: string[], env: Record<string, string> = {}) => runModelsDownload(work, { models }, args, env);

test("a pinned archive is downloaded, verified, unpacked and installed; the model then transcribes", async () => {
  const modelDir = join(work, "models-ok");
  const run = await download([spec("tiny-ok")], ["--dir", modelDir]);
  assert.equal(run.exitCode, 0, run.stderr);
  assert.match(run.stderr, /tiny-ok archive: .* of .* \(100%\)/);
  assert.match(run.stderr, /sha256 verified/);
  assert.doesNotMatch(run.stderr, /not pinned/);
  assert.deepEqual((await readdir(modelDir)).sort(), ["tiny-ok"], "no staging folder or archive left behind");
  assert.deepEqual((await readdir(join(modelDir, "tiny-ok"))).sort(), ["installed.json", "model.onnx", "tokens.txt"]);
  const record = await readInstallRecord(join(modelDir, "tiny-ok"));
  assert.equal(record?.checksumsPinned, true);
  assert.deepEqual(record?.downloads, [{ url: `${origin}/releases/tiny.tar.bz2`, sha256: archive.sha256, size: archive.size, pinned: true }]);
  assert.equal(record?.files.find((f) => f.path === "model.onnx")?.sha256, files["model.onnx"]?.sha256);

  const engine = await loadSherpaEngine({ modelDir });
  assert.ok(engine);
  try {
    const samples = toneTrack(1, [{ hz: melBinCentreHz(60), start: 0.3, end: 0.5 }]);
    const words = await engine.transcribe({ start: 5, samples }, { language: "en", signal: new AbortController().signal });
    assert.deepEqual(
      words.map((w) => w.text),
      ["tone"],
    );
  } finally {
    await engine.close();
  }

  const archiveHits = hits.get("/releases/tiny.tar.bz2");
  const again = await download([spec("tiny-ok")], ["--dir", modelDir]);
  assert.equal(again.exitCode, 0, again.stderr);
  assert.match(again.stderr, /already installed and verified/);
  assert.equal(hits.get("/releases/tiny.tar.bz2"), archiveHits, "a verified install is not downloaded again");

  await truncate(join(modelDir, "tiny-ok", "model.onnx"), 100);
  const repair = await download([spec("tiny-ok")], ["--dir", modelDir]);
  assert.equal(repair.exitCode, 0, repair.stderr);
  assert.match(repair.stderr, /replacing a copy that failed verification/);
  assert.deepEqual(await readFile(join(modelDir, "tiny-ok", "model.onnx")), files["model.onnx"]?.bytes);
});

test("an archive whose sha256 differs from the pinned one is refused and nothing is left behind", async () => {
  const modelDir = join(work, "models-bad");
  const wrong = spec("tiny-bad");
  assert.ok(wrong.archive);
  wrong.archive.sha256 = "f".repeat(64);
  const run = await download([wrong], ["--dir", modelDir]);
  assert.equal(run.exitCode, 1);
  assert.match(run.stderr, /does not match the f{64} the manifest pins; refused/);
  assert.deepEqual(await readdir(modelDir), []);
});

test("an extracted file whose sha256 differs from the pinned one is refused", async () => {
  const modelDir = join(work, "models-bad-file");
  const run = await download(
    [spec("tiny-bad-file", { files: [{ role: "model", path: "model.onnx", sha256: "0".repeat(64) }, { role: "tokens", path: "tokens.txt" }] })],
    ["--dir", modelDir],
  );
  assert.equal(run.exitCode, 1);
  assert.match(run.stderr, /refused, model\.onnx: sha256 [0-9a-f]{64}, expected 0{64}/);
  assert.deepEqual(await readdir(modelDir), []);
});

function unpinnedSpec(name: string): ModelSpec {
  const unpinned = spec(name, {
    files: [
      { role: "model", path: "model.onnx", url: `${origin}/files/model.onnx` },
      { role: "tokens", path: "tokens.txt", url: `${origin}/files/tokens.txt` },
    ],
  });
  delete unpinned.archive;
  return unpinned;
}

test("a file the manifest pins no checksum for is refused, and nothing is downloaded", async () => {
  const modelDir = join(work, "models-unpinned-refused");
  const before = hits.get("/files/model.onnx") ?? 0;
  const run = await download([unpinnedSpec("tiny-unpinned")], ["--dir", modelDir]);
  assert.equal(run.exitCode, 1);
  assert.match(run.stderr, /refused, the manifest pins no sha256 for .*\/files\/model\.onnx.*pass --trust-on-first-use/);
  assert.equal(hits.get("/files/model.onnx") ?? 0, before, "not even fetched");
  assert.deepEqual(await readdir(modelDir).catch(() => []), []);
});

test("--trust-on-first-use installs it, records each download's hash, and holds later downloads to it", async () => {
  const modelDir = join(work, "models-tofu");
  const run = await download([unpinnedSpec("tiny-tofu")], ["--dir", modelDir, "--trust-on-first-use"]);
  assert.equal(run.exitCode, 0, run.stderr);
  assert.match(run.stderr, /WARNING tiny-tofu\/model\.onnx: the manifest pins no checksum; trusting this first download \(--trust-on-first-use\) and recording sha256 [0-9a-f]{64}/);
  const record = await readInstallRecord(join(modelDir, "tiny-tofu"));
  assert.equal(record?.checksumsPinned, false);
  assert.deepEqual(record?.downloads?.find((d) => d.url.endsWith("/files/model.onnx")), {
    url: `${origin}/files/model.onnx`,
    sha256: files["model.onnx"]?.sha256,
    size: files["model.onnx"]?.bytes.length,
    pinned: false,
  });

  // The install is damaged and upstream now serves other bytes: the recorded hash refuses them.
  await truncate(join(modelDir, "tiny-tofu", "model.onnx"), 100);
  const original = served.get("/files/model.onnx");
  assert.ok(original);
  served.set("/files/model.onnx", Buffer.concat([original, Buffer.from("tampered")]));
  try {
    const again = await download([unpinnedSpec("tiny-tofu")], ["--dir", modelDir, "--trust-on-first-use"]);
    assert.equal(again.exitCode, 1);
    assert.match(again.stderr, /tiny-tofu\/model\.onnx: .* announces \d+ bytes, the first download \(installed\.json\) pins \d+/);
  } finally {
    served.set("/files/model.onnx", original);
  }
});

test("an unreachable file fails the command and leaves nothing behind", async () => {
  const modelDir = join(work, "models-404");
  const missing = spec("tiny-404");
  assert.ok(missing.archive);
  missing.archive.url = `${origin}/releases/gone.tar.bz2`;
  const run = await download([missing], ["--dir", modelDir]);
  assert.equal(run.exitCode, 1);
  assert.match(run.stderr, /answered HTTP 404/);
  assert.deepEqual(await readdir(modelDir), []);
});

test("--optional (as npm run setup runs it): a model that cannot be had is one line, and the command succeeds", async () => {
  const modelDir = join(work, "models-optional");
  const missing = spec("tiny-optional");
  assert.ok(missing.archive);
  missing.archive.url = `${origin}/releases/gone.tar.bz2`;
  const run = await download([missing], ["--dir", modelDir, "--optional"]);
  assert.equal(run.exitCode, 0, run.stderr);
  const lines = run.stderr.trim().split("\n");
  // The VAD model is installed first and is never optional.
  assert.match(lines[0] ?? "", /^silero-vad-v6\.2: already installed and verified/);
  assert.equal(lines.length, 2, run.stderr);
  assert.match(lines[1] ?? "", /^speech model not installed: .*answered HTTP 404\. The worker runs the pocketsphinx fallback \(low accuracy on real speech\) until you run: npm run models:download$/);
  assert.deepEqual(await readdir(modelDir), []);
});

test("without --dir the model goes where the worker looks: ASR_MODEL_DIR, else DATA_DIR/models", async () => {
  const dataDir = join(work, "data");
  const byDataDir = await download([spec("tiny-data-dir")], [], { DATA_DIR: dataDir });
  assert.equal(byDataDir.exitCode, 0, byDataDir.stderr);
  assert.deepEqual(await readdir(join(dataDir, "models")), ["tiny-data-dir"]);
  const modelDir = join(work, "models-env");
  const byModelDir = await download([spec("tiny-model-dir")], [], { DATA_DIR: dataDir, ASR_MODEL_DIR: modelDir });
  assert.equal(byModelDir.exitCode, 0, byModelDir.stderr);
  assert.deepEqual(await readdir(modelDir), ["tiny-model-dir"]);
  assert.deepEqual(await readdir(join(dataDir, "models")), ["tiny-data-dir"]);
});

test("an unknown model name is a usage error", async () => {
  const run = await download([spec("tiny-ok")], ["--dir", join(work, "unused"), "--model", "nope"]);
  assert.equal(run.exitCode, 2);
  assert.match(run.stderr, /unknown model nope; the manifest has tiny-ok/);
});
