import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeNonVideoFile, makeSpeechVideo } from "@caption/gpu-worker/testing";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { startTestService, type TestService } from "../support/test-service.ts";

let service: TestService;
let files: TestHttpsServer;

before(async () => {
  [service, files] = await Promise.all([startTestService(), startTestHttpsServer()]);
  const short = await makeSpeechVideo({ text: "Short clip for failure paths.", width: 320, height: 240, fps: 10, padSeconds: 0.5 });
  files.serveFile("/short.mp4", short.path, "video/mp4");
  files.route("/redirect.mp4", (_req, res) => {
    res.writeHead(302, { Location: files.url("/short.mp4") });
    res.end();
  });
  files.serveFile("/not-a-video.mp4", await makeNonVideoFile(), "video/mp4");
  files.route("/huge.mp4", (_req, res) => {
    res.writeHead(200, { "Content-Type": "video/mp4", "Content-Length": String(501 * 1024 * 1024) });
    res.end();
  });
  const long = await makeSpeechVideo({ text: "Long.", width: 64, height: 64, fps: 2, durationSeconds: 601 });
  files.serveFile("/long.mp4", long.path, "video/mp4");
  const wide = await makeSpeechVideo({ text: "Too wide.", width: 2048, height: 1080, fps: 5, padSeconds: 0.2 });
  files.serveFile("/wide.mp4", wide.path, "video/mp4");
  const silent = await makeSpeechVideo({ text: "No audio here.", width: 320, height: 240, fps: 10, audio: false });
  files.serveFile("/silent.mp4", silent.path, "video/mp4");
});
after(async () => {
  await files?.close();
  await service?.close();
});

/** Submits, waits for the terminal state, and checks it failed with `code` leaving usage untouched. */
async function expectFailure(target: TestService, body: Record<string, unknown>, code: string, credits = 600) {
  const { api_key: key } = await target.createKey({ credits });
  const usageBefore = (await target.call("GET", "/v1/usage", key)).body;
  const submitted = await target.call("POST", "/v1/subtitles", key, body);
  assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
  const job = await target.waitForJob(key, submitted.body.id);
  assert.equal(job.status, "failed", JSON.stringify(job));
  assert.equal(job.error?.code, code, JSON.stringify(job.error));
  assert.ok((job.error?.message ?? "").length > 0);
  assert.deepEqual(job.usage, { reserved_seconds: 0, billed_seconds: 0 });
  assert.equal(job.video, null);
  const usageAfter = (await target.call("GET", "/v1/usage", key)).body;
  assert.deepEqual({ ...usageAfter, active_jobs: 0 }, { ...usageBefore, active_jobs: 0 }, "no charge, reservation released");
  assert.equal(usageAfter.active_jobs, 0);
}

describe("failure paths end in `failed` with their code and no charge", () => {
  test("a redirect is refused", () => expectFailure(service, { video_url: files.url("/redirect.mp4") }, "REDIRECT_NOT_ALLOWED"));
  test("a 404 is unreachable", () => expectFailure(service, { video_url: files.url("/missing.mp4") }, "VIDEO_UNREACHABLE"));
  test("a file that is not a video", () => expectFailure(service, { video_url: files.url("/not-a-video.mp4") }, "UNSUPPORTED_FORMAT"));
  test("a file above 500 MiB", () => expectFailure(service, { video_url: files.url("/huge.mp4") }, "VIDEO_TOO_LARGE"));
  test("a video above 600 s", () => expectFailure(service, { video_url: files.url("/long.mp4") }, "VIDEO_TOO_LONG"));
  test("a video above 1080p", () => expectFailure(service, { video_url: files.url("/wide.mp4") }, "RESOLUTION_TOO_HIGH"));
  test("a video without audio", () => expectFailure(service, { video_url: files.url("/silent.mp4") }, "NO_AUDIO_TRACK"));
  test("max_duration_seconds below the video's length", () => expectFailure(service, { video_url: files.url("/short.mp4"), max_duration_seconds: 1 }, "DURATION_LIMIT_EXCEEDED"));
  test("too little credit when the video is inspected", () => expectFailure(service, { video_url: files.url("/short.mp4") }, "INSUFFICIENT_CREDITS", 1));
});

describe("without the test override", () => {
  let strict: TestService;
  before(async () => {
    strict = await startTestService({ env: { ALLOW_PRIVATE_VIDEO_URLS: "false", WORKER_CONCURRENCY: "1" } });
  });
  after(() => strict?.close());
  test("a loopback URL is not allowed", () => expectFailure(strict, { video_url: files.url("/short.mp4") }, "URL_NOT_ALLOWED"));
});
