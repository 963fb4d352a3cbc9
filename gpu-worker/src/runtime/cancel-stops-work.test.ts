import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test, type TestContext } from "node:test";
import pino from "pino";
import { accountBalance, grantCredits } from "@caption/shared/db/credit-ledger";
import { startNotificationListener, type NotificationListener } from "@caption/shared/db/notification-listener";
import { JOB_EVENTS_CHANNEL } from "@caption/shared/jobs/catalog";
import { cancelJob } from "@caption/shared/jobs/job-lifecycle";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { manualClock } from "@caption/shared/testing/manual-clock";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { until } from "@caption/shared/testing/until";
import { createPocketsphinxEngine } from "../asr/pocketsphinx-engine.ts";
import { speechDetectors, type SpeechDetectors } from "../asr/speech-detectors.ts";
import type { SpeechEngine } from "../asr/speech-engine.ts";
import { jobStatus } from "../db/job-repository.ts";
import { X264_ENCODER } from "../media/h264-encoder.ts";
import { SOFTWARE_DECODER } from "../media/video-decoder.ts";
import type { PipelineDeps } from "../pipeline/attempt-context.ts";
import { processJob } from "../pipeline/job-attempt.ts";
import { createLocalResultStore } from "../storage/local-result-store.ts";
import { audioExtraction, audioSecondsExtracted, decodingRecognizer, makeJobStateVideos, recognizerProcesses, renderFfmpeg } from "../testing/job-processes.ts";
import { descendantProcesses, isRunning, type ProcessInfo } from "../testing/process-tree.ts";
import { jobChangesFrom } from "./job-changes.ts";

// A cancel stops a job's work in every state: a real attempt (download, ffprobe, ffmpeg, Silero VAD, pocketsphinx,
// the render) over a real database is canceled as the API cancels (the jobs trigger NOTIFYs the worker's LISTEN).
// The attempt's clock stands still, so no poll finds the cancel and no timer is there to kill anything late: the
// cancel is heard by notification and every process is killed on it. Each test asserts the state held when the
// cancel landed, that every process is gone when the attempt ends, in that order, and that the job is canceled
// with nothing charged; it reports the time from the cancel to the last process gone (bench:abuse holds the figure).

type Entry = Record<string, unknown> & { msg: string; time: number };
const log: Entry[] = [];
const logger = pino({ level: "debug" }, { write: (line: string) => void log.push(JSON.parse(line) as Entry) });
const ACCOUNT = "acct_cancel_states";

let database: TestDatabase;
let listener: NotificationListener;
let files: TestHttpsServer;
let dir: string;
let pocketsphinx: SpeechEngine;
/** The worker's voice-activity detector, built before any job as the worker builds it. */
let detectors: SpeechDetectors;
/** Each recognizer call: its job, and whether it finished before it was stopped. */
const recognitions: { jobId: string; outcome?: "words" | "stopped" }[] = [];
let recognitionStarted = () => undefined as void;

before(async () => {
  database = await createTestDatabase();
  await database.db.insertInto("accounts").values({ id: ACCOUNT, name: "a" }).execute();
  await grantCredits(database.db, ACCOUNT, 10_000);
  listener = startNotificationListener(database.url, { channels: [JOB_EVENTS_CHANNEL], connectTimeoutSeconds: 5, logger });
  await new Promise<void>((resolve) => {
    const off = listener.onConnected(() => (off(), resolve()));
  });
  files = await startTestHttpsServer();
  dir = await mkdtemp(join(tmpdir(), "cancel-states-"));
  pocketsphinx = createPocketsphinxEngine({ logger });
  detectors = speechDetectors();
  await detectors.prepare(1);
  const { quietStart, speechFirst, longRender } = await makeJobStateVideos();
  files.serveFile("/quiet-start.mp4", quietStart.path, "video/mp4");
  files.serveFile("/speech-first.mp4", speechFirst.path, "video/mp4");
  files.serveFile("/long-render.mp4", longRender.path, "video/mp4");
});
after(async () => {
  await pocketsphinx?.close();
  await listener?.close();
  await files?.close();
  await database?.dispose();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function pipelineDeps(): PipelineDeps {
  // The recognizer as it is, told apart by job: which calls there were and how each ended.
  const engine: SpeechEngine = {
    ...pocketsphinx,
    transcribe(segment, options) {
      const call: (typeof recognitions)[number] = { jobId: String(options.logger?.bindings().job_id) };
      recognitions.push(call);
      const words = pocketsphinx.transcribe(segment, options);
      words.then(() => (call.outcome = "words"), () => (call.outcome = "stopped"));
      recognitionStarted();
      return words;
    },
  };
  return {
    db: database.db,
    store: createLocalResultStore(join(dir, "store")),
    engine,
    speechDetectors: detectors,
    encoder: X264_ENCODER,
    decoder: SOFTWARE_DECODER,
    logger,
    ffmpegPath: "ffmpeg",
    ffprobePath: "ffprobe",
    allowPrivateAddresses: true,
    workDir: join(dir, "work"),
    limits: {
      download: { totalTimeoutMs: 600_000, minBytesPerSecond: 0, throughputWindowMs: 1000 },
      probeTimeoutMs: 60_000,
      deadline: { baseSeconds: 600, perVideoSecond: 10 },
    },
    clock: manualClock(),
    jobChanges: jobChangesFrom(listener),
  };
}

// The states are seen from outside, as a person would see them (processes, rows); on a loaded machine a job
// takes minutes to reach some of them.
const STATE_TIMEOUT_MS = 600_000;

const exitOf = (pid: number) => log.find((entry) => entry.pid === pid && (entry.msg === "ffmpeg exited" || entry.msg === "pocketsphinx stopped"));

/**
 * Runs an attempt at a caption job of `path`, waits for `reached` (the state to cancel in), cancels the job as
 * the API does, and waits for the attempt to end. Returns what was running at the cancel.
 */
async function cancelIn(t: TestContext, name: string, path: string, reached: (jobId: string) => Promise<unknown>) {
  const jobId = `job_${name}`;
  await database.db
    .insertInto("jobs")
    .values({ id: jobId, account_id: ACCOUNT, status: "queued", video_url: files.url(path), preset: "classic", language: null, style: "{}", max_duration_seconds: 600 })
    .execute();
  const attempt = processJob(pipelineDeps(), jobId, { signal: new AbortController().signal, finalAttempt: true });
  await reached(jobId);
  const running = descendantProcesses(process.pid);
  const recognizer = recognizerProcesses(running);
  const sentAt = Date.now();
  assert.equal((await cancelJob(database.db, ACCOUNT, jobId))?.status, "canceled");
  await attempt;
  const entries = log.filter((entry) => entry.job_id === jobId);
  const heard = entries.findIndex((entry) => entry.msg === "cancel heard; stopping work");
  const stopped = entries.findIndex((entry) => entry.msg === "job canceled; work stopped");
  assert.ok(heard >= 0 && stopped > heard, "the cancel was heard, then the work stopped");

  // Every process the job had is gone; only the recognizer's own may stay (long-lived, and idle: see "recognizing").
  const left = descendantProcesses(process.pid);
  const idle = new Set(recognizerProcesses(left));
  assert.deepEqual(left.filter((p) => !idle.has(p)), [], "no process of the job is left");
  const ended = running.filter((p) => !isRunning(p.pid));
  for (const p of ended.filter((p) => p.name === "ffmpeg")) {
    const exit = exitOf(p.pid);
    assert.ok(exit && exit.canceled === true && exit.signal === "SIGKILL", `ffmpeg ${p.pid} was killed by the cancel: ${JSON.stringify(exit)}`);
    assert.ok(log.indexOf(exit) < log.indexOf(entries[stopped]!), "before the attempt reported its work stopped");
  }
  assert.equal(await jobStatus(database.db, jobId), "canceled");
  // No detector built while the job ran (that blocks the event loop, the cancel's notification with it), and the
  // job's given back, to be reset for the next.
  assert.deepEqual({ built: detectors.built, lent: detectors.lent }, { built: 1, lent: 0 }, "the worker's one detector, given back");
  assert.equal((await accountBalance(database.db, ACCOUNT)).reserved, 0, "nothing reserved, nothing charged");

  const goneAt = Math.max(sentAt, ...ended.map((p) => exitOf(p.pid)?.time ?? sentAt));
  t.diagnostic(
    `cancel → last of ${ended.length} processes gone (${ended.map((p) => p.name).join(", ") || "none"}): ${goneAt - sentAt} ms; ` +
      `→ work stopped: ${entries[stopped]!.time - sentAt} ms`,
  );
  return { recognizer, ended, sentAt };
}

test("downloading: the download's connection is closed", async (t) => {
  let connectionClosed = (_at: number) => undefined as void;
  const closed = new Promise<number>((resolve) => (connectionClosed = resolve));
  let firstBytes = () => undefined as void;
  const downloading = new Promise<void>((resolve) => (firstBytes = resolve));
  // Headers and a first piece of a large video, then nothing: the download waits for the rest.
  files.route("/stalls.mp4", (req, res) => {
    req.socket.once("close", () => connectionClosed(Date.now()));
    res.writeHead(200, { "content-type": "video/mp4", "content-length": String(100 * 2 ** 20) });
    res.write(Buffer.alloc(64 * 1024), () => firstBytes());
    return new Promise(() => undefined);
  });
  const { sentAt } = await cancelIn(t, "downloading", "/stalls.mp4", () => downloading);
  t.diagnostic(`the download's connection closed ${(await closed) - sentAt} ms after the cancel was sent`);
});

test("extracting audio: the audio ffmpeg is killed before any audio reached the recognizer", async (t) => {
  let audio: ProcessInfo | undefined;
  await cancelIn(t, "extracting", "/quiet-start.mp4", () => until("audio extraction", () => (audio = audioExtraction(process.pid)), STATE_TIMEOUT_MS));
  assert.equal(exitOf(audio!.pid)?.canceled, true, "it was still extracting");
  assert.equal(recognitions.filter((call) => call.jobId === "job_extracting").length, 0);
});

test("voice activity detection: stopped in the silence, the audio ffmpeg with it", async (t) => {
  let audio: ProcessInfo | undefined;
  // Thirty seconds of audio handed over: the detector is working through the silence.
  const detecting = () => until("30 s of audio extracted", () => (audio = audioExtraction(process.pid)) && audioSecondsExtracted(audio.pid) >= 30, STATE_TIMEOUT_MS);
  await cancelIn(t, "detecting", "/quiet-start.mp4", detecting);
  assert.equal(exitOf(audio!.pid)?.canceled, true, "it was still extracting");
  assert.equal(recognitions.filter((call) => call.jobId === "job_detecting").length, 0, "no speech had reached the recognizer");
  assert.ok(log.some((entry) => entry.job_id === "job_detecting" && entry.msg === "stage started" && entry.status === "transcribing"));
});

test("recognizing: pocketsphinx is killed mid-utterance", async (t) => {
  const called = new Promise<void>((resolve) => (recognitionStarted = resolve));
  // The recognizer called, and pocketsphinx reading the utterance's audio (it reads as it decodes).
  const decoding = () => until("pocketsphinx decoding", () => decodingRecognizer(process.pid));
  const { recognizer: decoders } = await cancelIn(t, "recognizing", "/speech-first.mp4", () => called.then(decoding));
  assert.ok(decoders.length > 0, "pocketsphinx was running");
  for (const decoder of decoders) assert.equal(isRunning(decoder.pid), false, `pocketsphinx ${decoder.pid} was stopped`);
  assert.deepEqual(recognitions.filter((call) => call.jobId === "job_recognizing").map((call) => call.outcome), ["stopped"], "its one utterance was cut short");
});

test("rendering: the render's ffmpeg is killed mid-render", async (t) => {
  let renderer: ProcessInfo | undefined;
  const rendering = async (jobId: string) => {
    await until("the rendering stage", async () => (await jobStatus(database.db, jobId)) === "rendering", STATE_TIMEOUT_MS);
    renderer = await until("the render's ffmpeg", () => renderFfmpeg(process.pid));
  };
  await cancelIn(t, "rendering", "/long-render.mp4", rendering);
  assert.equal(exitOf(renderer!.pid)?.canceled, true);
  assert.equal(log.some((entry) => entry.job_id === "job_rendering" && entry.msg === "captioned video rendered"), false, "the render was cut short");
});
