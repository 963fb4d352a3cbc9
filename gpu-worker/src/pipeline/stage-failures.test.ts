import assert from "node:assert/strict";
import { chmod, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import pino from "pino";
import type { OutputKind } from "@caption/shared/api/output";
import { accountBalance, grantCredits } from "@caption/shared/db/credit-ledger";
import { realClock } from "@caption/shared/time/clock";
import { UPLOADS_FOLDER } from "@caption/shared/storage/result-files";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { createPocketsphinxEngine } from "../asr/pocketsphinx-engine.ts";
import type { SpeechEngine } from "../asr/speech-engine.ts";
import { loadJob } from "../db/job-repository.ts";
import { runFfmpeg } from "../media/ffmpeg.ts";
import { X264_ENCODER } from "../media/h264-encoder.ts";
import { SOFTWARE_DECODER } from "../media/video-decoder.ts";
import { createLocalResultStore } from "../storage/local-result-store.ts";
import type { ResultStore } from "../storage/result-store.ts";
import { descendantProcesses } from "../testing/process-tree.ts";
import { makeSpeechVideo } from "../testing/speech-video.ts";
import type { PipelineDeps } from "./attempt-context.ts";
import { processJob } from "./job-attempt.ts";

// A caption job's stages fail in turn, each by a throw (or a dying child) in the part it calls: the worker's process
// lives on (no uncaught exception, no unhandled rejection), no child outlives the attempt, and the job ends
// `failed` with a code, its reservation released and nothing charged. The attempts are the last ones the queue
// allows: an unexpected error fails the job INTERNAL_ERROR there (before, it is retried). A video the service
// cannot burn (an odd size: H.264 4:2:0 codes even sizes only) fails at once with its code, on any attempt, while
// its overlay is made.

let database: TestDatabase;
let engine: SpeechEngine;
let dir: string;
let video: string;
let oddVideo: string;
let store: ResultStore;
const crashes: unknown[] = [];
const heard = (error: unknown) => void crashes.push(error);

before(async () => {
  process.on("uncaughtException", heard);
  process.on("unhandledRejection", heard);
  database = await createTestDatabase();
  engine = createPocketsphinxEngine();
  dir = await mkdtemp(join(tmpdir(), "stage-failures-"));
  store = createLocalResultStore(join(dir, "store"));
  await database.db.insertInto("accounts").values({ id: "acct_1", name: "a" }).execute();
  await grantCredits(database.db, "acct_1", 600);
  await database.db.insertInto("api_keys").values({ id: "key_1", account_id: "acct_1", name: "k", prefix: "k1", secret_hash: "0".repeat(64), scopes: ["subtitles:write"] }).execute();
  video = (await makeSpeechVideo({ text: "Every stage may fail, and the worker goes on.", width: 360, height: 640, fps: 30 })).path;
  // 853×481, as the crash report's: H.264 in 4:4:4 (x264 codes odd sizes there, not in 4:2:0).
  oddVideo = join(dir, "odd.mp4");
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-i", video, "-vf", "scale=853:481,format=yuv444p", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "copy", oddVideo] });
});
after(async () => {
  process.off("uncaughtException", heard);
  process.off("unhandledRejection", heard);
  await engine.close();
  await database.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** An ffmpeg that kills itself when its arguments contain `pattern` (a shell `case` pattern), else runs ffmpeg. */
async function ffmpegDyingOn(pattern: string): Promise<string> {
  const path = join(dir, `ffmpeg-${Math.random().toString(36).slice(2)}`);
  await writeFile(path, `#!/bin/sh\ncase "$*" in ${pattern}) kill -9 $$;; esac\nexec ffmpeg "$@"\n`);
  await chmod(path, 0o755);
  return path;
}

const broken = (what: string) => new Error(`${what} broke`);

function deps(overrides: Partial<PipelineDeps>): PipelineDeps {
  return {
    db: database.db,
    store,
    engine,
    encoder: X264_ENCODER,
    decoder: SOFTWARE_DECODER,
    logger: pino({ level: "silent" }),
    ffmpegPath: "ffmpeg",
    ffprobePath: "ffprobe",
    allowPrivateAddresses: false,
    workDir: join(dir, "work"),
    limits: {
      download: { totalTimeoutMs: 60_000, minBytesPerSecond: 0, throughputWindowMs: 1000 },
      probeTimeoutMs: 15_000,
      deadline: { baseSeconds: 600, perVideoSecond: 1 },
    },
    clock: realClock,
    ...overrides,
  };
}

let jobs = 0;
/** A queued caption job of an uploaded video, run as one attempt; its row after. */
async function runJob(source: string, kind: OutputKind, overrides: Partial<PipelineDeps>, finalAttempt = true) {
  const id = `job_${++jobs}`;
  const { size } = await stat(source);
  const now = new Date();
  await database.db.insertInto("uploads").values({ id: `up_${id}`, account_id: "acct_1", api_key_id: "key_1", size_bytes: size, filename: null, created_at: now, expires_at: now, completed_at: now }).execute();
  await store.put(UPLOADS_FOLDER, `up_${id}`, source, "video/mp4");
  await database.db.insertInto("jobs").values({ id, account_id: "acct_1", status: "queued", upload_id: `up_${id}`, video_url: null, preset: "karaoke", language: null, style: "{}", max_duration_seconds: 600, output_kind: kind }).execute();
  const attempt = { signal: new AbortController().signal, finalAttempt };
  const outcome = await processJob(deps(overrides), id, attempt).then(() => null, (error: unknown) => error);
  return { row: (await loadJob(database.db, id))!, outcome, id };
}

async function charges(jobId: string): Promise<number> {
  const rows = await database.db.selectFrom("credit_ledger").select("kind").where("job_id", "=", jobId).where("kind", "=", "charge").execute();
  return rows.length;
}

type Stage = { stage: string; kind: OutputKind; code: string; change: (store: ResultStore) => Partial<PipelineDeps> | Promise<Partial<PipelineDeps>> };
const STAGES: Stage[] = [
  { stage: "ingest: the upload's bytes cannot be read", kind: "burned", code: "INTERNAL_ERROR", change: (store) => ({ store: { ...store, get: () => Promise.reject(broken("the store")) } }) },
  { stage: "inspect: ffprobe dies", kind: "burned", code: "UNSUPPORTED_FORMAT", change: async () => ({ ffprobePath: await ffmpegDyingOn("*") }) },
  { stage: "transcribe: the recognizer throws as it is called", kind: "burned", code: "TRANSCRIPTION_FAILED", change: () => ({ engine: { ...engine, transcribe: () => { throw broken("the recognizer"); } } }) },
  { stage: "transcribe: the audio's ffmpeg dies", kind: "burned", code: "UNSUPPORTED_FORMAT", change: async () => ({ ffmpegPath: await ffmpegDyingOn("*f32le*") }) },
  // What crashed the worker: the render threw before it read the cues recognition was feeding it.
  { stage: "render: its set-up throws before any cue is read", kind: "burned", code: "INTERNAL_ERROR", change: () => ({ encoder: { ...X264_ENCODER, get args(): string[] { throw new RangeError("frame size"); } } }) },
  { stage: "render: the burned video's ffmpeg dies", kind: "burned", code: "RENDER_FAILED", change: async () => ({ ffmpegPath: await ffmpegDyingOn("*matroska*") }) },
  { stage: "render: the overlay MOV's tile encoder dies", kind: "overlay", code: "RENDER_FAILED", change: async () => ({ ffmpegPath: await ffmpegDyingOn("*prores_ks*") }) },
  { stage: "render: the uncaptioned video's ffmpeg dies", kind: "overlay", code: "INTERNAL_ERROR", change: async () => ({ ffmpegPath: await ffmpegDyingOn("*faststart*") }) },
  { stage: "store: the poster's ffmpeg dies", kind: "burned", code: "INTERNAL_ERROR", change: async () => ({ ffmpegPath: await ffmpegDyingOn("*.jpg*") }) },
  { stage: "store: a result cannot be stored", kind: "burned", code: "INTERNAL_ERROR", change: (store) => ({ store: { ...store, put: () => Promise.reject(broken("the store")) } }) },
];

for (const { stage, kind, code, change } of STAGES) {
  test(`${stage}: the process lives on, the job fails ${code}, uncharged`, async () => {
    const overrides = await change(store);
    const balance = (await accountBalance(database.db, "acct_1")).available;
    const { row, id } = await runJob(video, kind, overrides);
    assert.deepEqual(crashes, []);
    assert.deepEqual([row.status, row.error_code], ["failed", code], row.error_message ?? "");
    assert.equal(await charges(id), 0);
    assert.equal((await accountBalance(database.db, "acct_1")).available, balance, "the reservation is released");
    // The recognizer's process is the worker's, kept between jobs; the attempt's own are gone.
    assert.deepEqual(descendantProcesses(process.pid).filter((p) => p.name === "ffmpeg" || p.name === "ffprobe"), []);
  });
}

test("an odd-sized video burned fails UNSUPPORTED_FORMAT before any work, on its first attempt, uncharged", async () => {
  const { row, outcome, id } = await runJob(oddVideo, "burned", {}, false);
  assert.equal(outcome, null, "not thrown back to the queue for a retry");
  assert.deepEqual([row.status, row.error_code], ["failed", "UNSUPPORTED_FORMAT"]);
  assert.match(row.error_message ?? "", /853x481.*even width and height.*overlay/);
  assert.equal(await charges(id), 0);
  assert.deepEqual(crashes, []);
});

test("an odd-sized video's overlay is made, at its size", async () => {
  const { row } = await runJob(oddVideo, "overlay", {}, false);
  assert.deepEqual(crashes, []);
  assert.equal(row.status, "completed", `${row.error_code}: ${row.error_message}`);
  assert.ok(row.overlay_webm_key && row.overlay_mov_key);
});
