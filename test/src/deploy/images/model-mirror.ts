// A model mirror on loopback for the worker image's build (ASR_MODEL_MIRROR), serving an archive laid out
// like the SenseVoice release the manifest names (same file name, same folder and files inside) that holds
// a tiny hand-weighted SenseVoice model: it hears marker tones as "hello" and "world" (spoken-clip.ts). The
// manifest pins no checksum for SenseVoice, so the build takes it with ASR_MODEL_TRUST_ON_FIRST_USE, the
// way an operator builds an unpinned model from a mirror of their own. The archive is the same bytes on
// every run, and its sha256 is part of the mirror's URL, so the build's cache holds exactly when it may.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { kaldiMelBinCentreHz, writeTinySenseVoiceModel, type Tone } from "@caption/gpu-worker/testing";
import { REPO_ROOT } from "../../fixtures/repo-paths.ts";

interface ManifestModel {
  name: string;
  family: string;
  archive?: { url: string; root: string; sha256?: string };
  files: { role: string; path: string }[];
}
const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "gpu-worker", "models", "manifest.json"), "utf8")) as { models: ManifestModel[] };
const senseVoice = manifest.models.find((m) => m.family === "sense-voice");
if (!senseVoice?.archive) throw new Error("the manifest has no SenseVoice release archive");
/** The model the check's worker image is built with (ASR_MODEL). */
export const MIRRORED_MODEL = senseVoice.name;
const { root, url } = senseVoice.archive;
const archiveName = new URL(url).pathname.split("/").pop() ?? "";

/** Marker tones (Kaldi mel bins of SenseVoice's 80-bin front end) and the words the tiny model writes for them. */
export const MARKERS = { language: { bin: 74, language: "en" }, hello: { bin: 56, word: "hello" }, world: { bin: 62, word: "world" } } as const;
export const markerTone = (bin: number, start: number, end: number): Tone => ({ hz: kaldiMelBinCentreHz(bin), start, end });

export interface ModelMirror {
  /** ASR_MODEL_MIRROR for the build. */
  url: string;
  sha256: string;
  close(): Promise<void>;
}

async function buildArchive(): Promise<Buffer> {
  const work = await mkdtemp(path.join(tmpdir(), "model-mirror-"));
  try {
    const release = path.join(work, root);
    await mkdir(release, { recursive: true });
    const fileOf = (role: string) => path.join(release, senseVoice?.files.find((f) => f.role === role)?.path ?? role);
    await writeTinySenseVoiceModel(fileOf, [{ piece: `▁${MARKERS.hello.word}`, bin: MARKERS.hello.bin }, { piece: `▁${MARKERS.world.word}`, bin: MARKERS.world.bin }], {
      languageTones: { [MARKERS.language.language]: MARKERS.language.bin },
    });
    const archive = path.join(work, archiveName);
    // Reproducible: names sorted, times and owners fixed.
    await execa("tar", ["--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner", "-cjf", archive, "-C", work, root]);
    return await readFile(archive);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const listen = (server: Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
  });

/** Serves the archive at http://127.0.0.1:PORT/<sha256>/<release file name>. */
export async function startModelMirror(): Promise<ModelMirror> {
  const archive = await buildArchive();
  const sha256 = createHash("sha256").update(archive).digest("hex");
  const server = createServer((request, response) => {
    if (request.url === `/${sha256}/${archiveName}`) response.writeHead(200, { "content-length": archive.length, "content-type": "application/x-bzip2" }).end(archive);
    else response.writeHead(404).end();
  });
  // The same port each run when it is free (the mirror's URL is a build argument, part of the cache key).
  const port = await listen(server, 20_000 + (parseInt(sha256.slice(0, 4), 16) % 10_000)).catch(() => listen(server, 0));
  return { url: `http://127.0.0.1:${port}/${sha256}/`, sha256, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
