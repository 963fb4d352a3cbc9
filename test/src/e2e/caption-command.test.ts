// The caption command (npm run caption) end to end, against a running service (CAPTION_API_URL and
// CAPTION_API_KEY): a URL's five files, what it prints, --json, an API error, Ctrl-C canceling the job, and an
// upload whose connection drops halfway, resumed.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { makeSpeechVideo } from "@caption/gpu-worker/testing";
import { probeMedia } from "@caption/gpu-worker/media";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { runCaptionCommand } from "../support/caption-command.ts";
import { droppingProxy } from "../support/dropping-proxy.ts";
import { startTestService, type TestService } from "../support/test-service.ts";

let service: TestService;
let files: TestHttpsServer;
let work: string;
let clipSeconds: number;

before(async () => {
  [service, files] = await Promise.all([startTestService(), startTestHttpsServer()]);
  work = await mkdtemp(path.join(tmpdir(), "caption-command-"));
  const clip = await makeSpeechVideo({ text: "Captions from the command line are quick.", width: 320, height: 240, fps: 10, padSeconds: 0.5 });
  clipSeconds = clip.durationSeconds;
  files.serveFile("/media/talk.mp4", clip.path, "video/mp4");
  const long = await makeSpeechVideo({ text: "A longer talk to cancel halfway through.", width: 640, height: 360, fps: 25, durationSeconds: 40 });
  files.serveFile("/long.mp4", long.path, "video/mp4");
});
after(async () => {
  await files?.close();
  await service?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const remote = (key: string) => ({ CAPTION_API_URL: service.url, CAPTION_API_KEY: key });

test("a URL: the five files in --out, named after the URL; stage lines on stderr; billed seconds and balance on stdout", { timeout: 180_000 }, async () => {
  const { api_key: key } = await service.createKey({ credits: 600 });
  const run = runCaptionCommand([files.url("/media/talk.mp4"), "--preset", "highlight", "--out", "out"], { cwd: work, env: remote(key) });
  assert.equal(await run.exited, 0, `${run.stderr()}\n${run.stdout()}`);
  const out = path.join(work, "out");
  const probed = await probeMedia(path.join(out, "talk.captioned.mp4"));
  assert.deepEqual([probed.width, probed.height, probed.hasAudio], [320, 240, true]);
  assert.match(await readFile(path.join(out, "talk.srt"), "utf8"), /^1\r?\n00:00:\d\d,\d{3} --> /);
  assert.match(await readFile(path.join(out, "talk.vtt"), "utf8"), /^WEBVTT/);
  assert.match(await readFile(path.join(out, "talk.ass"), "utf8"), /\[Script Info\]/);
  const transcript = JSON.parse(await readFile(path.join(out, "talk.transcript.json"), "utf8")) as { words: unknown[]; preset: string };
  assert.ok(transcript.words.length > 0);
  assert.equal(transcript.preset, "highlight");

  // Not a terminal: no bars, one plain line per finished stage (no upload for a URL).
  assert.doesNotMatch(run.stderr(), /\x1b\[/);
  assert.match(run.stderr(), /^service http:\/\/127\.0\.0\.1:\d+$/m);
  assert.match(run.stderr(), /^job job_\w+ submitted$/m);
  assert.match(run.stderr(), /^ingest: done in \d+\.\d s\ntranscribe: done in \d+\.\d s\nrender: done in \d+\.\d s$/m);
  const billed = Math.ceil(clipSeconds);
  const usage = (await service.call("GET", "/v1/usage", key)).body as { available_seconds: number };
  assert.equal(usage.available_seconds, 600 - billed);
  const lines = run.stdout().trimEnd().split("\n");
  assert.match(lines[0] ?? "", /^job job_\w+ completed in \d+\.\d s; wrote:$/);
  assert.deepEqual(lines.slice(1, 6), ["talk.captioned.mp4", "talk.srt", "talk.vtt", "talk.ass", "talk.transcript.json"].map((name) => `  out/${name}`));
  assert.equal(lines[6], `billed ${billed} s; balance left ${600 - billed} s`);
  assert.equal(lines.length, 7);
});

test("--json: nothing on stderr, exactly one JSON object on stdout", { timeout: 180_000 }, async () => {
  const { api_key: key } = await service.createKey({ credits: 100 });
  const run = runCaptionCommand([files.url("/media/talk.mp4"), "--json", "--out", path.join(work, "json")], { cwd: "/", env: remote(key) });
  assert.equal(await run.exited, 0, run.stderr());
  assert.equal(run.stderr(), "");
  const outcome = JSON.parse(run.stdout()) as Record<string, unknown>;
  assert.equal(run.stdout().trim().split("\n").length, 1);
  assert.deepEqual(Object.keys(outcome).sort(), [
    "balance_seconds",
    "billed_seconds",
    "download_seconds",
    "files",
    "job_id",
    "job_seconds",
    "service",
    "service_seconds",
    "status",
    "upload_seconds",
    "wall_seconds",
  ]);
  assert.equal(outcome.status, "completed");
  assert.equal(outcome.service, "remote");
  assert.equal(outcome.upload_seconds, 0, "a URL is not uploaded");
  assert.equal(outcome.billed_seconds, Math.ceil(clipSeconds));
  assert.equal(outcome.balance_seconds, 100 - Math.ceil(clipSeconds));
  assert.equal((outcome.files as Record<string, string>).video, path.join(work, "json", "talk.captioned.mp4"));
  assert.ok((outcome.job_seconds as number) > 0 && (outcome.job_seconds as number) <= (outcome.wall_seconds as number));
});

test("an API error: non-zero exit with the API's code and message, no job", async () => {
  const { api_key: key } = await service.createKey({ credits: 100 });
  const run = runCaptionCommand([files.url("/media/talk.mp4"), "--style", '{"text_color":"red"}'], { cwd: work, env: remote(key) });
  assert.equal(await run.exited, 1);
  assert.match(run.stderr(), /^error INVALID_REQUEST: .*text_color/m);
  const json = runCaptionCommand([files.url("/media/talk.mp4"), "--json"], { cwd: work, env: remote("sk_live_not_a_key") });
  assert.equal(await json.exited, 1);
  assert.equal((JSON.parse(json.stdout()) as { error: { code: string } }).error.code, "UNAUTHORIZED");
  const usage = (await service.call("GET", "/v1/usage", key)).body as { available_seconds: number; active_jobs: number };
  assert.deepEqual([usage.available_seconds, usage.active_jobs], [100, 0]);
  // A missing file fails before any service is asked (or started: no CAPTION_API_URL here).
  const missing = runCaptionCommand(["no-such-talk.mp4"], { cwd: work, env: { DATA_DIR: path.join(work, "unused-data"), CAPTION_API_URL: "", CAPTION_API_KEY: "" } });
  assert.equal(await missing.exited, 1);
  assert.equal(missing.stderr(), `error FILE_NOT_FOUND: ${path.join(work, "no-such-talk.mp4")}: no such file\n`);
});

test("Ctrl-C cancels the job and says so: exit 130, the job canceled, nothing charged, no files", { timeout: 180_000 }, async () => {
  const { api_key: key } = await service.createKey({ credits: 600 });
  const run = runCaptionCommand([files.url("/long.mp4"), "--out", "canceled"], { cwd: work, env: remote(key) });
  const [, jobId] = (await run.waitForStderr(/^job (job_\w+) submitted$/m)) as RegExpMatchArray;
  // Once the video is in and the reservation made, mid-job.
  await service.waitForJob(key, jobId as string, (job) => job.status === "transcribing" || job.status === "rendering" || job.status === "completed", 120_000);
  run.child.kill("SIGINT");
  assert.equal(await run.exited, 130, run.stderr());
  assert.match(run.stderr(), /^Ctrl-C: canceling…$/m);
  assert.match(run.stderr(), new RegExp(`^canceled job ${jobId} \\(now canceled\\); nothing is charged for a canceled job$`, "m"));
  const job = (await service.call("GET", `/v1/jobs/${jobId}`, key)).body as { status: string; usage: unknown };
  assert.equal(job.status, "canceled");
  assert.deepEqual(job.usage, { reserved_seconds: 0, billed_seconds: 0 });
  const usage = (await service.call("GET", "/v1/usage", key)).body as { available_seconds: number };
  assert.equal(usage.available_seconds, 600);
  assert.equal(run.stdout(), "");
});

test("the upload's connection drops halfway: the command resumes from the stored offset and the job has the file's bytes", { timeout: 180_000 }, async () => {
  const clip = await makeSpeechVideo({ text: "A dropped upload resumes where it stopped.", width: 640, height: 360, fps: 25, durationSeconds: 12 });
  await copyFile(clip.path, path.join(work, "dropped.mp4"));
  const bytes = await readFile(clip.path);
  const { api_key: key } = await service.createKey({ credits: 600 });
  const proxy = await droppingProxy(new URL(service.url), Math.floor(bytes.length / 2));
  try {
    const run = runCaptionCommand(["dropped.mp4", "--json"], { cwd: work, env: { CAPTION_API_URL: proxy.origin, CAPTION_API_KEY: key } });
    assert.equal(await run.exited, 0, `${run.stderr()}\n${run.stdout()}`);
    assert.equal(proxy.cuts, 1, "the upload's connection was cut");
    // Resumed, not sent again from the start: the bytes that reached the API are the file and a little HTTP.
    assert.ok(proxy.upstreamBytes < bytes.length * 1.1, `${proxy.upstreamBytes} bytes upstream for a ${bytes.length}-byte file`);
    const outcome = JSON.parse(run.stdout()) as { job_id: string };
    const recorded = await service.database.db.selectFrom("jobs").select(["source_sha256", "source_bytes"]).where("id", "=", outcome.job_id).executeTakeFirstOrThrow();
    assert.deepEqual(recorded, { source_sha256: createHash("sha256").update(bytes).digest("hex"), source_bytes: bytes.length });
    assert.ok((await probeMedia(path.join(work, "dropped.captioned.mp4"))).hasAudio);
  } finally {
    proxy.close();
  }
});
