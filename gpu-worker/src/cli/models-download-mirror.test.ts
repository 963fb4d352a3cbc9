// models:download rehearsed end to end without the network: a local HTTPS mirror (the test CA) serves
// an archive laid out like the real release of the manifest's default model (same file name, same
// folder inside, same file names, with a tiny transducer in place of the weights), the manifest entry
// is the real one with this archive's sha256 and size pinned, and ASR_MODEL_MIRROR points there. Then
// the worker, started again, must load and run what was installed.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { execa } from "execa";
import pino from "pino";
import { parseEnv } from "@caption/shared/config/env";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { loadSpeechEngine } from "../asr/engine-registry.ts";
import { findInstalledModels, readInstallRecord } from "../asr/sherpa/model-files.ts";
import { readManifest, type ModelManifest, type ModelSpec } from "../asr/sherpa/model-manifest.ts";
import { startCaptionWorker } from "../runtime/caption-worker.ts";
import { runModelsDownload } from "../testing/models-download-cli.ts";
import { TDT_MEL_BINS, writeTinyTransducerModel } from "../testing/tiny-transducer-model.ts";
import { melBinCentreHz, toneTrack } from "../testing/tones.ts";

const TOKENS = [
  { piece: "▁hel", bin: 96, duration: 2 },
  { piece: "lo", bin: 104, duration: 2 },
];

let work: string;
let mirror: TestHttpsServer;
let upstream: ModelSpec;
let archive: Buffer;
let archiveName: string;
let manifest: ModelManifest;
let database: TestDatabase;

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

before(async () => {
  work = await mkdtemp(join(tmpdir(), "models-mirror-"));
  const parakeet = (await readManifest()).models.find((m) => m.name === "parakeet-tdt-0.6b-v3-int8");
  assert.ok(parakeet?.archive, "the manifest's default model comes as a release archive");
  upstream = parakeet;
  const { root } = parakeet.archive;
  archiveName = new URL(parakeet.archive.url).pathname.split("/").pop() ?? "";
  assert.equal(archiveName, `${root}.tar.bz2`);

  // The release's layout: <root>/{encoder,decoder,joiner}.int8.onnx, tokens.txt and test_wavs/.
  const release = join(work, "release", root);
  await mkdir(join(release, "test_wavs"), { recursive: true });
  await writeTinyTransducerModel((role) => join(release, parakeet.files.find((f) => f.role === role)?.path ?? role), TOKENS);
  await writeFile(join(release, "test_wavs", "0.wav"), Buffer.alloc(44));
  const archivePath = join(work, archiveName);
  await execa("tar", ["-cjf", archivePath, "-C", join(work, "release"), root]);
  archive = await readFile(archivePath);
  manifest = { models: [{ ...parakeet, archive: { ...parakeet.archive, sha256: sha256(archive), size: archive.length } }] };

  mirror = await startTestHttpsServer();
  mirror.serveFile(`/asr-models/${archiveName}`, archivePath);
  database = await createTestDatabase();
});

after(async () => {
  await mirror.close();
  await database.dispose();
  await rm(work, { recursive: true, force: true });
});

const download = (modelDir: string, base = mirror.url("/asr-models/"), args: string[] = []) =>
  runModelsDownload(work, manifest, ["--dir", modelDir, ...args], { ASR_MODEL_MIRROR: base });

/** Starts the real worker on `modelDir`: what its start-up log says about the speech engine, and how it registered. */
async function workerEngine(modelDir: string): Promise<{ ready: Record<string, unknown> | undefined; registered: { engine: string; model: string }[] }> {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: "info" },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  const env = parseEnv({ DATA_DIR: join(work, "worker-data"), ASR_MODEL_DIR: modelDir, LOG_LEVEL: "info" });
  const worker = await startCaptionWorker(env, database.url, logger);
  try {
    const registered = await database.db.selectFrom("workers").select(["engine", "model"]).execute();
    return { ready: lines.find((l) => l.msg === "speech engine ready"), registered };
  } finally {
    await worker.stop({ graceSeconds: 0 });
  }
}

/** What is in `modelDir`: model folders, and hidden staging folders left by an interrupted run. */
async function contents(modelDir: string): Promise<string[]> {
  return (await readdir(modelDir).catch(() => [])).sort();
}

test("rehearsal: the default model's release archive comes from the mirror with progress, is verified and installed, and the restarted worker runs it", async () => {
  const modelDir = join(work, "models");
  assert.equal((await workerEngine(modelDir)).ready?.engine, "pocketsphinx", "before: the fallback");

  const run = await download(modelDir);
  assert.equal(run.exitCode, 0, run.stderr);
  assert.match(run.stderr, new RegExp(`archive: fetching ${upstream.archive?.url.replaceAll(".", "\\.")} from the mirror`));
  assert.match(run.stderr, /archive: .* of .* \(100%\)/);
  assert.match(run.stderr, /sha256 verified/);
  assert.match(run.stderr, /parakeet-tdt-0\.6b-v3-int8: installed in /);
  assert.deepEqual(await contents(modelDir), ["parakeet-tdt-0.6b-v3-int8"], "no staging folder or archive left behind");
  assert.deepEqual(await contents(join(modelDir, "parakeet-tdt-0.6b-v3-int8")), ["decoder.int8.onnx", "encoder.int8.onnx", "installed.json", "joiner.int8.onnx", "tokens.txt"]);
  // Recorded under the upstream URL: a later download from upstream or another mirror is held to the same hash.
  const record = await readInstallRecord(join(modelDir, "parakeet-tdt-0.6b-v3-int8"));
  assert.deepEqual(record?.downloads, [{ url: upstream.archive?.url, sha256: sha256(archive), size: archive.length, pinned: true }]);

  const { ready, registered } = await workerEngine(modelDir);
  assert.equal(ready?.engine, "sherpa-onnx", "after a restart: the installed model");
  assert.equal(ready?.model, "parakeet-tdt-0.6b-v3-int8");
  assert.deepEqual(registered, [{ engine: "sherpa-onnx", model: "parakeet-tdt-0.6b-v3-int8" }], "and it tells the API so");

  const speech = await loadSpeechEngine({ engine: "auto", modelDir, logger: pino({ level: "silent" }) });
  try {
    const hz = (bin: number) => melBinCentreHz(bin, TDT_MEL_BINS);
    const samples = toneTrack(1, [{ hz: hz(96), start: 0.26, end: 0.4 }, { hz: hz(104), start: 0.5, end: 0.62 }]);
    const words = await speech.transcribe({ start: 0, samples }, { language: "auto", signal: new AbortController().signal });
    assert.deepEqual(
      words.map((w) => w.text),
      ["hello"],
    );
  } finally {
    await speech.close();
  }
});

/** Serves the archive, but the first answer stops after `bytes` (dropping or holding the connection); later ones honour Range unless `ignoreRange`. */
function brokenOnce(options: { bytes: number; then: "drop" | "hang"; ignoreRange?: boolean }, seen: { range?: string | undefined; ifRange?: string | undefined }[]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ range: req.headers.range, ifRange: req.headers["if-range"] as string | undefined });
    const headers = { "content-type": "application/x-bzip2", etag: '"release-1"', "accept-ranges": "bytes" };
    if (seen.length === 1) {
      res.writeHead(200, { ...headers, "content-length": archive.length });
      res.write(archive.subarray(0, options.bytes), () => {
        if (options.then === "drop") res.destroy();
      });
      return;
    }
    const from = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? "")?.[1] ?? Number.NaN);
    if (options.ignoreRange || !Number.isInteger(from)) {
      res.writeHead(200, { ...headers, "content-length": archive.length }).end(archive);
      return;
    }
    res.writeHead(206, { ...headers, "content-length": archive.length - from, "content-range": `bytes ${from}-${archive.length - 1}/${archive.length}` }).end(archive.subarray(from));
  };
}

test("a connection dropped part-way is resumed with a Range request from the byte where it broke off", async () => {
  const seen: { range?: string | undefined; ifRange?: string | undefined }[] = [];
  const half = Math.floor(archive.length / 2);
  mirror.route("/resume/" + archiveName, brokenOnce({ bytes: half, then: "drop" }, seen));
  const modelDir = join(work, "models-resumed");
  const run = await download(modelDir, mirror.url("/resume/"));
  assert.equal(run.exitCode, 0, run.stderr);
  assert.match(run.stderr, /connection lost at .*; resuming \(connection 2 of 6\)/);
  assert.deepEqual(seen, [{ range: undefined, ifRange: undefined }, { range: `bytes=${half}-`, ifRange: '"release-1"' }]);
  assert.match(run.stderr, /sha256 verified/);
  assert.deepEqual(await contents(modelDir), ["parakeet-tdt-0.6b-v3-int8"]);
});

test("a mirror that answers the resumption with the whole file is read again from the start", async () => {
  const seen: { range?: string | undefined }[] = [];
  mirror.route("/no-ranges/" + archiveName, brokenOnce({ bytes: 100, then: "drop", ignoreRange: true }, seen));
  const modelDir = join(work, "models-restarted");
  const run = await download(modelDir, mirror.url("/no-ranges/"));
  assert.equal(run.exitCode, 0, run.stderr);
  assert.match(run.stderr, /the server sent the whole file again; starting over/);
  assert.equal(seen.length, 2);
  assert.deepEqual(await contents(modelDir), ["parakeet-tdt-0.6b-v3-int8"]);
});

test("a mirror serving other bytes is refused by the pinned checksum, and nothing is installed", async () => {
  const tampered = Buffer.from(archive);
  tampered[tampered.length - 1] = (tampered.at(-1) ?? 0) ^ 0xff;
  mirror.route("/tampered/" + archiveName, (_req, res) => {
    res.writeHead(200, { "content-length": tampered.length }).end(tampered);
  });
  const modelDir = join(work, "models-tampered");
  const run = await download(modelDir, mirror.url("/tampered/"));
  assert.equal(run.exitCode, 1);
  assert.match(run.stderr, /sha256 [0-9a-f]{64} does not match the [0-9a-f]{64} the manifest pins; refused/);
  assert.deepEqual(await contents(modelDir), []);
});

test("a run killed mid-download leaves no model folder, only its staging, which the next run clears as it installs", async () => {
  const seen: { range?: string | undefined }[] = [];
  let sent: () => void = () => undefined;
  const halfSent = new Promise<void>((resolve) => (sent = resolve));
  const hanging = brokenOnce({ bytes: Math.floor(archive.length / 2), then: "hang" }, seen);
  mirror.route("/hang/" + archiveName, (req, res) => {
    hanging(req, res);
    sent();
  });
  const modelDir = join(work, "models-killed");
  const running = runModelsDownload(work, manifest, ["--dir", modelDir], { ASR_MODEL_MIRROR: mirror.url("/hang/") });
  // The staging folder exists before the download starts; half the archive is on its way.
  await halfSent;
  running.kill("SIGKILL");
  await running;
  const left = await contents(modelDir);
  assert.equal(left.length, 1);
  assert.match(left[0] ?? "", /^\.parakeet-tdt-0\.6b-v3-int8\.partial-/);
  assert.deepEqual(await findInstalledModels(modelDir), [], "the worker sees no model");

  const rerun = await download(modelDir);
  assert.equal(rerun.exitCode, 0, rerun.stderr);
  assert.deepEqual(await contents(modelDir), ["parakeet-tdt-0.6b-v3-int8"]);
});

test("ASR_MODEL_MIRROR must be an http(s) URL", async () => {
  const run = await download(join(work, "models-bad-mirror"), "ftp://mirror.example/");
  assert.equal(run.exitCode, 1);
  assert.match(run.stderr, /ASR_MODEL_MIRROR="ftp:\/\/mirror\.example\/"/);
});
