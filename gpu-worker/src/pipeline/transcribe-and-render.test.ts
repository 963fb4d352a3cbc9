import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import pino from "pino";
import type { PresetId } from "@caption/shared/api/preset";
import type { JobRow } from "@caption/shared/db/tables";
import { JobFailure } from "@caption/shared/errors/codes";
import { realClock } from "@caption/shared/time/clock";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { createPocketsphinxEngine } from "../asr/pocketsphinx-engine.ts";
import type { SpeechEngine } from "../asr/speech-engine.ts";
import { transcribeAudio } from "../asr/transcribe-audio.ts";
import { jobStatus, loadJob } from "../db/job-repository.ts";
import { decodePcm16kMono } from "../media/audio-pcm.ts";
import { probeMedia } from "../media/ffprobe.ts";
import { SOFTWARE_DECODER } from "../media/video-decoder.ts";
import { renderCaptionedVideo } from "../render/render-video.ts";
import { buildStyledCues } from "../render/styled-cues.ts";
import { createLocalResultStore } from "../storage/local-result-store.ts";
import { cuesToSrt } from "../subtitles/srt.ts";
import { cuesToVtt } from "../subtitles/vtt.ts";
import { traceAttempt } from "../telemetry/attempt-tracing.ts";
import { frameHashes, LOSSLESS_ENCODER } from "../testing/frame-hashes.ts";
import { descendantProcesses } from "../testing/process-tree.ts";
import { makeSpeechVideo } from "../testing/speech-video.ts";
import type { AttemptContext, PipelineDeps } from "./attempt-context.ts";
import { advanceJob } from "@caption/shared/jobs/job-lifecycle";
import { progressReporter } from "./progress-reporter.ts";
import { transcribeAndRender } from "./transcribe-and-render.ts";
import { defaultPhoneticLexicon, NO_LEXICON } from "../asr/vocabulary/phonetic-lexicon.ts";
import { createWordPass, type WordPass } from "../words/word-pass.ts";

// Recognition and the render at once must give what transcribing first and rendering after gives: the same
// words, byte-identical SRT and WebVTT, and pixel-identical frames (through a lossless encode).
const TEXT = "Welcome back to the channel. Today we bake bread with four simple things: flour, water, salt and time. Stay until the end for the crust.";

let database: TestDatabase;
let engine: SpeechEngine;
let dir: string;
before(async () => {
  database = await createTestDatabase();
  engine = createPocketsphinxEngine();
  dir = await mkdtemp(join(tmpdir(), "transcribe-and-render-"));
  await database.db.insertInto("accounts").values({ id: "acct_1", name: "a" }).execute();
});
after(async () => {
  await engine.close();
  await database.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** An attempt's context over the real database, store and tools, as job-attempt.ts builds it. */
function attemptContext(job: JobRow, deps: PipelineDeps, tracing: AttemptContext["tracing"], attemptDir: string): AttemptContext {
  const jobId = job.id;
  const signal = new AbortController().signal;
  return {
    deps,
    job,
    log: deps.logger,
    tracing,
    signal,
    dir: attemptDir,
    progress: progressReporter(deps.db, jobId, deps.clock),
    async enter(status, progress) {
      assert.ok(await advanceJob(deps.db, jobId, { status, progress }), `the job moves to ${status}`);
    },
    stopNow: () => {
      throw new Error("not canceled in this test");
    },
    startBilledWork: () => signal,
    stored: [],
    started: performance.now(),
  };
}

function pipelineDeps(speech: SpeechEngine): PipelineDeps {
  return {
    db: database.db,
    store: createLocalResultStore(join(dir, "store")),
    engine: speech,
    encoder: LOSSLESS_ENCODER,
    decoder: SOFTWARE_DECODER,
    logger: pino({ level: "silent" }),
    ffmpegPath: "ffmpeg",
    ffprobePath: "ffprobe",
    allowPrivateAddresses: false,
    workDir: dir,
    limits: {
      download: { totalTimeoutMs: 60_000, minBytesPerSecond: 0, throughputWindowMs: 1000 },
      probeTimeoutMs: 15_000,
      deadline: { baseSeconds: 600, perVideoSecond: 1 },
    },
    clock: realClock,
  };
}

/** The speech video, its job row (ingested) and an attempt folder, for a job named `name`. */
async function prepareJob(name: string, preset: PresetId, padSeconds?: number) {
  const video = await makeSpeechVideo({ text: TEXT, width: 540, height: 960, fps: 30, ...(padSeconds === undefined ? {} : { padSeconds }) });
  const media = await probeMedia(video.path);
  const style = resolveStyle({ preset, video: { width: media.width, height: media.height } });
  const jobId = `job_${name}`;
  await database.db.insertInto("jobs").values({ id: jobId, account_id: "acct_1", status: "ingesting", video_url: "https://a/b.mp4", preset, language: null, style: "{}", max_duration_seconds: 600 }).execute();
  const job = await loadJob(database.db, jobId);
  assert.ok(job);
  const attemptDir = await mkdtemp(join(dir, `${name}-`));
  /** The attempt's recognition and render at once, with `speech` recognising. */
  const overlapped = (speech: SpeechEngine, work: AbortSignal, pass: WordPass = async (words) => [...words]) =>
    traceAttempt(jobId, undefined, (tracing) =>
      transcribeAndRender(attemptContext(job, pipelineDeps(speech), tracing, attemptDir), {
        sourcePath: video.path,
        media,
        style,
        seconds: Math.ceil(media.durationSeconds),
        language: "en",
        vocabulary: [],
        pass,
        work,
        band: [12, 95],
      }),
    );
  return { video, media, style, jobId, attemptDir, overlapped };
}

for (const preset of ["highlight", "smash"] as const) {
  test(`${preset}: recognition and render at once give the words, SRT, WebVTT and frames of recognition then render`, async () => {
    const { video, media, style, jobId, attemptDir, overlapped } = await prepareJob(preset, preset);

    // The sequential path: every word first, then the render with every cue.
    const signal = new AbortController().signal;
    const sequential = await transcribeAudio({ pcm: decodePcm16kMono(video.path, { signal, container: media.container, limitSeconds: media.durationSeconds }), engine, language: "en", signal });
    const sequentialCues = buildStyledCues(sequential.words, style, media.durationSeconds);
    const reference = join(dir, `${preset}-sequential.mp4`);
    await renderCaptionedVideo({ inputPath: video.path, outputPath: reference, cues: sequentialCues, style, media, encoder: LOSSLESS_ENCODER });

    const together = await overlapped(engine, signal);

    assert.ok(sequential.words.length >= 15, `${sequential.words.length} words`);
    assert.deepEqual(together.transcribed, sequential);
    assert.equal(cuesToSrt(together.cues), cuesToSrt(sequentialCues));
    assert.equal(cuesToVtt(together.cues), cuesToVtt(sequentialCues));
    assert.deepEqual(await frameHashes(join(attemptDir, "captioned.mp4")), await frameHashes(reference));
    // Recognition over, the job reads `rendering` while the render finishes.
    assert.equal(await jobStatus(database.db, jobId), "rendering");
  });
}

test("the word pass reaches the picture: replaced words are what the cues show, originals kept", async () => {
  const { overlapped, jobId } = await prepareJob("word-pass", "highlight");
  const pass = await createWordPass({ vocabulary: [], replacements: { bread: "sourdough loaves" }, profanity: "keep" }, NO_LEXICON, { seconds: 10 });
  const together = await overlapped(engine, new AbortController().signal, pass);
  const shown = together.cues.flatMap((c) => c.lines.flatMap((l) => l.words.map((w) => w.text)));
  assert.deepEqual(shown, together.words.map((w) => w.text));
  assert.ok(shown.includes("sourdough") && shown.includes("loaves") && !shown.includes("bread"), shown.join(" "));
  assert.deepEqual(together.words.filter((w) => w.original === "bread").map((w) => w.text), ["sourdough", "loaves"]);
  assert.ok(together.transcribed.words.some((w) => w.text === "bread"), "the recognised words stay as recognised");
  // Ended, so the account's concurrency limit leaves room for the tests after.
  await database.db.updateTable("jobs").set({ status: "canceled" }).where("id", "=", jobId).execute();
});

// A speech engine that does `then` instead of recognising: by then the render's ffmpeg is running, waiting on the cues.
function failingEngine(then: () => Promise<never>): SpeechEngine {
  return { ...engine, transcribe: () => then() };
}

async function stopTest(name: string, speech: SpeechEngine, work: AbortSignal, pass?: WordPass): Promise<unknown> {
  const { overlapped } = await prepareJob(name, "highlight");
  const outcome = await overlapped(speech, work, pass).then(
    () => assert.fail("the attempt should have stopped"),
    (error: unknown) => error,
  );
  // Both sides have settled before the attempt ends: no ffmpeg (render or audio decode) outlives it.
  assert.deepEqual(descendantProcesses(process.pid).filter((p) => p.name === "ffmpeg"), []);
  return outcome;
}

test("a recognition failure stops the render, and the attempt ends with the recognition's error", async () => {
  const broken = new Error("the recognizer broke");
  const outcome = await stopTest("asr_fails", failingEngine(() => Promise.reject(broken)), new AbortController().signal);
  assert.ok(outcome instanceof JobFailure);
  assert.equal(outcome.code, "TRANSCRIPTION_FAILED");
  assert.equal(outcome.cause, broken);
});

test("the attempt's signal (a cancel, the deadline) stops recognition and the render at once", async () => {
  const work = new AbortController();
  const reason = new Error("canceled");
  // The abort comes mid-recognition, with the render under way.
  const hanging = failingEngine(() => {
    work.abort(reason);
    return new Promise<never>((_resolve, reject) => reject(work.signal.reason));
  });
  const outcome = await stopTest("canceled", hanging, work.signal);
  assert.equal(outcome, reason);
});

test("a failing word pass stops recognition and the render, and the attempt ends with its error, nothing left unhandled", async () => {
  const passFailed = new Error("the word pass broke");
  // The first words reach the pass, which fails; a cancel comes right after (recognition then ends on it, before
  // it would have awaited the pass's failure).
  const work = new AbortController();
  const recognisedThenCanceled: SpeechEngine = {
    ...engine,
    transcribe: async (segment, options) => {
      const words = await engine.transcribe(segment, options);
      setImmediate(() => work.abort(new Error("canceled")));
      return words;
    },
  };
  // The jobs before ended, so the account's concurrency limit leaves room for this one.
  await database.db.updateTable("jobs").set({ status: "canceled" }).where("status", "in", ["transcribing", "rendering"]).execute();
  const unhandled: unknown[] = [];
  const heard = (error: unknown) => void unhandled.push(error);
  process.on("unhandledRejection", heard);
  try {
    const outcome = await stopTest("pass_fails", recognisedThenCanceled, work.signal, () => Promise.reject(passFailed));
    // An unhandled rejection is reported once the microtasks have run.
    await new Promise(setImmediate);
    assert.equal(outcome, passFailed, "the first failure is the attempt's");
    assert.deepEqual(unhandled, []);
  } finally {
    process.off("unhandledRejection", heard);
  }
});

test("a cancel while the vocabulary pass works ends the attempt with the cancel, and nothing is left unhandled", async () => {
  // The jobs of the tests before end here, so the account's concurrency limit leaves room for this one.
  await database.db.updateTable("jobs").set({ status: "canceled" }).where("status", "not in", ["completed", "failed", "canceled"]).execute();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  const vocabulary = await createWordPass({ vocabulary: ["Kubernetes"], replacements: {}, profanity: "keep" }, await defaultPhoneticLexicon(), { seconds: 10 });
  try {
    const work = new AbortController();
    const reason = new Error("canceled");
    // The cancel comes as the first words reach the pass, with seconds of audio still to read: the pass stops (its
    // thread with it), and so does recognition, which fails first.
    const pass: WordPass = (words, signal) => {
      work.abort(reason);
      return vocabulary(words, signal);
    };
    const { overlapped } = await prepareJob("canceled_pass", "highlight", 10);
    const outcome = await overlapped(engine, work.signal, pass).then(
      () => assert.fail("the attempt should have stopped"),
      (error: unknown) => error,
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(outcome, reason);
    assert.deepEqual(unhandled, []);
  } finally {
    process.off("unhandledRejection", onUnhandled);
    await vocabulary.close();
  }
});
