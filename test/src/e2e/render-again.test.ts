import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pino from "pino";
import { isTerminal, type Job } from "@caption/shared/api/job";
import type { Transcript } from "@caption/shared/api/transcript";
import { assFilter, linkBundledFonts, parseSrt } from "@caption/gpu-worker/subtitles";
import { grayFrame, makeSpeechVideo, parseWebVtt } from "@caption/gpu-worker/testing";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { frameAt, maxRowDifference } from "../support/frames.ts";
import { startTestService, type TestService } from "../support/test-service.ts";

// Edit and render again, through the HTTP API on a real video: a submitted job completes, two of its
// words are corrected and it is rendered with another preset, without downloading or transcribing.

const TEXT = "The quick brown fox jumps over the lazy dog. Captions make every video easier to follow.";
const WIDTH = 640;
const HEIGHT = 360;
const LONG_WORD = "Supercalifragilistic";
const OTHER_WORD = "Zanzibar";

interface LogLine {
  job_id?: string;
  msg?: string;
  status?: string;
}

let service: TestService;
let files: TestHttpsServer;
const logLines: LogLine[] = [];

before(async () => {
  // The worker's log, kept to see which stages each job went through.
  const logger = pino({ level: "info" }, { write: (line: string) => void logLines.push(JSON.parse(line) as LogLine) });
  [service, files] = await Promise.all([startTestService({ logger }), startTestHttpsServer()]);
});
after(async () => {
  await files?.close();
  await service?.close();
});

const text = async (url: string | null) => {
  assert.ok(url, "a link");
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  return { body: await response.text(), headers: response.headers };
};
const stagesLogged = (jobId: string) => logLines.filter((line) => line.job_id === jobId && line.msg === "stage started").map((line) => line.status);

/** Waits for the job to end, recording every status polling saw. */
async function finish(key: string, id: string): Promise<{ job: Job; seen: Set<string> }> {
  const seen = new Set<string>();
  const job = await service.waitForJob(key, id, (j) => {
    seen.add(j.status);
    return isTerminal(j.status);
  });
  assert.equal(job.status, "completed", JSON.stringify(job));
  return { job, seen };
}

/** Left to right extent (pixels) of what the captions changed in the frame at `seconds`: the caption band's columns that differ. */
async function captionWidth(captioned: string, source: string, seconds: number): Promise<number> {
  const size = { width: WIDTH, height: HEIGHT };
  const [out, src] = await Promise.all([frameAt(captioned, seconds, size), frameAt(source, seconds, size)]);
  const { row } = maxRowDifference(out, src, WIDTH, HEIGHT);
  const top = Math.max(0, row - 12);
  const bottom = Math.min(HEIGHT, row + 12);
  const columns: number[] = [];
  for (let x = 0; x < WIDTH; x++) {
    let sum = 0;
    for (let y = top; y < bottom; y++) for (let c = 0; c < 3; c++) sum += Math.abs(out[(y * WIDTH + x) * 3 + c]! - src[(y * WIDTH + x) * 3 + c]!);
    if (sum / ((bottom - top) * 3) > 30) columns.push(x);
  }
  return columns.length === 0 ? 0 : columns.at(-1)! - columns[0]! + 1;
}

describe("edit the words, change the preset, render again", () => {
  let key: string;
  let source: { path: string; durationSeconds: number };
  let usageBefore: any;
  let original: { job: Job; seen: Set<string>; transcript: Transcript };
  let edited: Transcript["words"];
  let corrected: [number, number];
  let reference: number;
  let rerender: { job: Job; seen: Set<string>; transcript: Transcript; video: string };

  before(async () => {
    source = await makeSpeechVideo({ text: TEXT, width: WIDTH, height: HEIGHT, fps: 25, padSeconds: 1 });
    files.serveFile("/talk.mp4", source.path, "video/mp4");
    ({ api_key: key } = await service.createKey({ credits: 120 }));
    usageBefore = (await service.call("GET", "/v1/usage", key)).body;

    const submitted = await service.call("POST", "/v1/subtitles", key, { video_url: files.url("/talk.mp4"), preset: "classic", max_duration_seconds: 60 });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const first = await finish(key, submitted.body.id);
    original = { ...first, transcript: JSON.parse((await text(first.job.subtitles.transcript_url)).body) };

    // Short words long enough to sample mid-word; two are corrected, a third stays as it was heard.
    const short = original.transcript.words.flatMap((w, i) => (w.text.length <= 5 && w.end - w.start >= 0.15 ? [i] : []));
    assert.ok(short.length >= 4, `short words to correct: ${JSON.stringify(original.transcript.words)}`);
    corrected = [short[1]!, short[3]!];
    reference = short[2]!;
    edited = original.transcript.words.map(({ text: t, start, end }, i) => ({
      text: i === corrected[0] ? LONG_WORD : i === corrected[1] ? OTHER_WORD : t,
      start,
      end,
    }));

    // One word at a time, no animation: at a word's time the picture shows that word alone.
    const requested = await service.call("POST", `/v1/jobs/${first.job.id}/renders`, key, { preset: "background", style: { line_count: 0 }, words: edited });
    assert.equal(requested.status, 202, JSON.stringify(requested.body));
    const second = await finish(key, requested.body.id);
    const video = path.join(service.dataDir, "rerendered.mp4");
    await writeFile(video, Buffer.from(await (await fetch(second.job.video!.url)).arrayBuffer()));
    rerender = { ...second, video, transcript: JSON.parse((await text(second.job.subtitles.transcript_url)).body) };
  });

  test("the new job names its source and went queued → rendering → completed, with no download or transcription", async () => {
    assert.equal(rerender.job.source_job_id, original.job.id);
    assert.equal(original.job.source_job_id, null);
    // The job's status history, as the database recorded every change (job_events, the event stream's source).
    const history = async (jobId: string) =>
      (await service.database.db.selectFrom("job_events").select("status").where("job_id", "=", jobId).where("type", "=", "status").orderBy("id").execute()).map((e) => e.status);
    assert.deepEqual(await history(original.job.id), ["queued", "ingesting", "transcribing", "rendering", "completed"]);
    assert.deepEqual(await history(rerender.job.id), ["queued", "rendering", "completed"]);
    assert.deepEqual(stagesLogged(original.job.id), ["ingesting", "transcribing", "rendering"], "the worker log shows every stage of a submitted video");
    assert.deepEqual(stagesLogged(rerender.job.id), ["rendering"]);
    for (const status of rerender.seen) assert.ok(["queued", "rendering", "completed"].includes(status), `polling saw ${status}`);
    assert.equal(rerender.job.progress, 100);
  });

  test("the render job's copy of the source is the source job's file (a hard link), not a second upload", async () => {
    const stored = (jobId: string) => stat(path.join(service.dataDir, "files", jobId, "source-video"));
    const [first, second] = await Promise.all([stored(original.job.id), stored(rerender.job.id)]);
    assert.equal(second.ino, first.ino);
    assert.ok(first.nlink >= 2);
    // GET /v1/usage counts what is on disk: both jobs' files, their one source video once.
    const onDisk = async (jobId: string) => {
      const dir = path.join(service.dataDir, "files", jobId);
      const names = (await readdir(dir)).filter((name) => name !== "source-video");
      return (await Promise.all(names.map(async (name) => (await stat(path.join(dir, name))).size))).reduce((a, b) => a + b, 0);
    };
    const usage = (await service.call("GET", "/v1/usage", key)).body;
    assert.equal(usage.stored_bytes, (await onDisk(original.job.id)) + (await onDisk(rerender.job.id)) + first.size);
  });

  test("the picture shows the corrected word while it is spoken", async () => {
    const mid = (i: number) => (edited[i]!.start + edited[i]!.end) / 2;
    const [long, heard] = await Promise.all([
      captionWidth(rerender.video, source.path, mid(corrected[0])),
      captionWidth(rerender.video, source.path, mid(reference)),
    ]);
    assert.ok(heard > 10, `a caption is drawn for "${edited[reference]!.text}" (${heard} px)`);
    assert.ok(long > 2.5 * heard, `"${LONG_WORD}" (${long} px) is drawn far wider than the ≤ 5 letters the recognizer heard, as "${edited[reference]!.text}" is (${heard} px)`);
  });

  test("transcript, SRT and WebVTT carry the corrections; the transcript keeps the source's language and engine", async () => {
    assert.deepEqual(rerender.transcript.words, edited);
    assert.equal(rerender.transcript.job_id, rerender.job.id);
    assert.equal(rerender.transcript.preset, "background");
    assert.equal(rerender.transcript.language, original.transcript.language);
    assert.equal(rerender.transcript.engine, original.transcript.engine);
    assert.ok(rerender.transcript.segments.some((s) => s.text.includes(LONG_WORD)));
    const srtWords = parseSrt((await text(rerender.job.subtitles.srt_url)).body).flatMap((e) => e.text.split(/\s+/u));
    assert.deepEqual(srtWords, edited.map((w) => w.text));
    const vtt = await text(rerender.job.subtitles.vtt_url);
    assert.equal(vtt.headers.get("content-type"), "text/vtt; charset=utf-8");
    assert.deepEqual(parseWebVtt(vtt.body).flatMap((cue) => cue.text.split(/\s+/u)), edited.map((w) => w.text));
  });

  test("the original's WebVTT parses, with a timing tag at every later word of a cue", async () => {
    const cues = parseWebVtt((await text(original.job.subtitles.vtt_url)).body);
    const words = original.transcript.words;
    assert.deepEqual(cues.flatMap((cue) => cue.text.split(/\s+/u)), words.map((w) => w.text));
    const ms = (seconds: number) => Math.round(seconds * 1000);
    let next = 0;
    for (const cue of cues) {
      const count = cue.text.split(/\s+/u).length;
      const expected = words.slice(next + 1, next + count).map((w) => ms(w.start)).filter((at) => at > ms(cue.start) && at < ms(cue.end));
      assert.deepEqual(cue.timestamps.map(ms), [...new Set(expected)], `tags of cue "${cue.text}"`);
      next += count;
    }
    assert.ok(cues.some((cue) => cue.timestamps.length > 0), "the classic preset shows several words per cue");
  });

  test("the ASS file loads in ffmpeg's subtitles filter and draws the corrected word while it is spoken", async () => {
    const ass = await text(rerender.job.subtitles.ass_url);
    assert.equal(ass.headers.get("content-type"), "text/x-ssa; charset=utf-8");
    assert.equal(ass.headers.get("content-disposition"), 'attachment; filename="captions.ass"');
    assert.match(ass.body, new RegExp(`^Dialogue: .*${LONG_WORD}`, "mu"));
    const dir = await mkdtemp(path.join(tmpdir(), "render-again-ass-"));
    try {
      const assPath = path.join(dir, "captions.ass");
      await writeFile(assPath, ass.body);
      const fontsDir = path.join(dir, "fonts");
      await linkBundledFonts(fontsDir);
      const frame = (atSeconds: number, burned: boolean) =>
        grayFrame({ input: ["-i", source.path], ...(burned ? { filter: assFilter(assPath, fontsDir, "subtitles") } : {}), atSeconds, width: WIDTH, height: HEIGHT });
      const at = (edited[corrected[0]]!.start + edited[corrected[0]]!.end) / 2;
      const before = 0.3;
      // Pixels the burn-in changed clearly.
      const changed = async (seconds: number) => {
        const [plain, burned] = await Promise.all([frame(seconds, false), frame(seconds, true)]);
        return plain.pixels.filter((value, i) => Math.abs(value - burned.pixels[i]!) > 40).length;
      };
      assert.ok((await changed(at)) > 500, "libass drew the caption over the picture");
      assert.equal(await changed(before), 0, "and nothing before the speech");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("usage moved by exactly two charges of ceil(duration)", async () => {
    const seconds = Math.ceil(source.durationSeconds);
    assert.deepEqual(original.job.usage, { reserved_seconds: 0, billed_seconds: seconds });
    assert.deepEqual(rerender.job.usage, { reserved_seconds: 0, billed_seconds: seconds });
    const usage = (await service.call("GET", "/v1/usage", key)).body;
    assert.equal(usage.consumed_seconds - usageBefore.consumed_seconds, 2 * seconds);
    assert.equal(usageBefore.available_seconds - usage.available_seconds, 2 * seconds);
    assert.equal(usage.reserved_seconds, 0);
  });

  test("the re-render can itself be rendered again, inheriting its edited words", async () => {
    const requested = await service.call("POST", `/v1/jobs/${rerender.job.id}/renders`, key, { preset: "classic" });
    assert.equal(requested.status, 202, JSON.stringify(requested.body));
    const third = await finish(key, requested.body.id);
    assert.equal(third.job.source_job_id, rerender.job.id);
    const transcript: Transcript = JSON.parse((await text(third.job.subtitles.transcript_url)).body);
    assert.deepEqual(transcript.words, edited);
    assert.deepEqual(stagesLogged(third.job.id), ["rendering"]);
  });

  test("a render whose stored source vanished fails SOURCE_NOT_RENDERABLE and costs nothing", async () => {
    await rm(path.join(service.dataDir, "files", original.job.id, "source-video"));
    const consumed = (await service.call("GET", "/v1/usage", key)).body.consumed_seconds;
    const requested = await service.call("POST", `/v1/jobs/${original.job.id}/renders`, key, {});
    assert.equal(requested.status, 202, "the row still says the files are kept");
    const job = await service.waitForJob(key, requested.body.id);
    assert.equal(job.status, "failed");
    assert.equal(job.error?.code, "SOURCE_NOT_RENDERABLE");
    assert.deepEqual(job.usage, { reserved_seconds: 0, billed_seconds: 0 });
    const usage = (await service.call("GET", "/v1/usage", key)).body;
    assert.equal(usage.consumed_seconds, consumed);
    assert.equal(usage.reserved_seconds, 0);
  });
});
