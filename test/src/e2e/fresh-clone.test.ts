// The README's quick start as a newcomer runs it: the repository alone (no shared/ beside it) in a
// fresh private (0700) directory under $HOME, as this run's user (root in CI), then `npm run setup`,
// `npm run caption -- ./clip.mp4` in a terminal (progress bars, five files), and `npm start`, a key
// from the admin CLI, one real job from an HTTPS server on loopback, and a clean stop on SIGTERM.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { copyFile, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Job } from "@caption/shared/api/job";
import { probeMedia } from "@caption/gpu-worker/media";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";
import { makeSpeechVideo } from "@caption/gpu-worker/testing";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { apiRequest } from "@caption/control-plane/testing";
import { copyRepositoryToPrivateHome, inTerminal, newcomerEnv, npm, npmStart, type StartedService } from "../support/fresh-clone.ts";

const asRoot = process.getuid?.() === 0;
let parent: string;
let clone: string;
let files: TestHttpsServer;
let service: StartedService | undefined;
let clusterDir: string | undefined;

before(async () => {
  ({ parent, clone } = await copyRepositoryToPrivateHome());
  files = await startTestHttpsServer();
});

after(async () => {
  if (service && service.child.exitCode === null && service.child.signalCode === null) {
    service.child.kill("SIGTERM");
    await service.exited;
  }
  await files?.close();
  // As root the cluster lives outside the clone (see docs/operations.md "Where the data lives"); it goes with the clone.
  if (clusterDir && !clusterDir.startsWith(parent)) await rm(clusterDir, { recursive: true, force: true });
  await rm(parent, { recursive: true, force: true });
});

test("a fresh clone in a private home directory: setup, caption a file, start, one job, clean stop", { timeout: 20 * 60_000 }, async (t) => {
  assert.equal((await stat(parent)).mode & 0o777, 0o700);
  assert.equal(existsSync(path.join(parent, "shared")), false);
  const env = newcomerEnv({
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    // The video comes from this test's HTTPS server on loopback, signed by the run's CA (NODE_EXTRA_CA_CERTS is set by the runner).
    ALLOW_PRIVATE_VIDEO_URLS: "true",
    // setup tries the default neural model; where its host answers, it lands once in this checkout
    // instead of once per run (offline, as in CI, setup says so in one line and carries on).
    ASR_MODEL_DIR: path.join(REPO_ROOT, ".data", "models"),
  });

  // `npm run setup && npm start`, the README's first command.
  const setup = await npm(clone, ["run", "setup"], env);
  assert.equal(setup.code, 0, setup.output);
  assert.match(setup.output, /silero-vad-v6\.2: installed in .*caption-service\/gpu-worker\/models\/silero-vad-v6\.2\/silero_vad\.onnx \(size and sha256 verified\)/);
  assert.match(setup.output, /setup: done/);

  // `npm run caption -- ./clip.mp4`, the README's second command, typed in a terminal: bars, then the five files.
  const video = await makeSpeechVideo({ text: "Hello and welcome. Captions make every video easier to follow.", width: 640, height: 360, fps: 25, padSeconds: 0.5 });
  await copyFile(video.path, path.join(clone, "clip.mp4"));
  const caption = await inTerminal(clone, "npm run caption -- ./clip.mp4", env);
  assert.equal(caption.code, 0, caption.output);
  assert.match(caption.output, /upload {5}\[#{30}\] 100%/, "the upload's bar, drawn in the terminal");
  assert.match(caption.output, /render {5}\[#{30}\] 100%/);
  assert.match(caption.output, new RegExp(`billed ${Math.ceil(video.durationSeconds)} s; balance left \\d+ s`));
  for (const name of ["clip.captioned.mp4", "clip.srt", "clip.vtt", "clip.ass", "clip.transcript.json"]) assert.ok((await stat(path.join(clone, name))).size > 0, name);
  const captioned = await probeMedia(path.join(clone, "clip.captioned.mp4"));
  assert.deepEqual([captioned.width, captioned.height, captioned.hasAudio], [640, 360, true]);
  t.diagnostic(`npm run caption -- ./clip.mp4 (${video.durationSeconds.toFixed(1)} s clip, first start of the database included): ${caption.seconds.toFixed(1)} s`);

  service = npmStart(clone, env);
  const url = await service.url;
  assert.equal((await fetch(`${url}/readyz`)).status, 200);
  // The studio setup built: a browser at the printed URL lands on its page, whose script the API serves.
  const studio = await fetch(`${url}/`, { headers: { accept: "text/html" } });
  assert.equal(new URL(studio.url).pathname, "/studio/");
  const script = /src="\.\/(assets\/[^"]+\.js)"/u.exec(await studio.text())?.[1];
  assert.equal((await fetch(`${url}/studio/${script}`)).status, 200, `the studio's script ${script}`);

  // What the newcomer is told: which recognizer runs and, for the fallback, what it costs.
  const engineLine = service.log.find((l) => l.msg === "speech engine ready");
  assert.ok(engineLine, service.output());
  const accuracyWarning = service.log.some((l) => l.level === 40 && /accuracy on real speech is low .*npm run models:download/.test(String(l.msg)));
  // Offline (as in CI) setup cannot fetch the neural model, so the fallback runs and must say what it costs.
  assert.equal(accuracyWarning, engineLine.engine === "pocketsphinx", service.output());
  if (/speech model not installed: .* is unreachable/.test(setup.output)) assert.equal(engineLine.engine, "pocketsphinx", service.output());
  // Where the data lives: DATA_DIR (./.data) in the clone; as root the database under /var/lib/caption-service.
  const credentials = JSON.parse(await readFile(path.join(clone, ".data", "postgres.json"), "utf8")) as { clusterDir?: string };
  clusterDir = credentials.clusterDir ?? path.join(clone, ".data", "postgres");
  assert.ok(existsSync(path.join(clusterDir, "PG_VERSION")));
  if (asRoot) assert.match(clusterDir, /^\/var\/lib\/caption-service\/clusters\/.*caption-service-\.data-[0-9a-f]{12}$/);
  assert.equal((await stat(parent)).mode & 0o777, 0o700, "the user's directory keeps its permissions");

  const admin = await npm(clone, ["run", "-s", "admin", "--", "keys:create", "--name", "newcomer", "--scopes", "subtitles:write", "--credits", "60"], env);
  assert.equal(admin.code, 0, admin.output);
  const { api_key: key } = JSON.parse(admin.output.trim().split("\n").at(-1) ?? "") as { api_key: string };

  files.serveFile("/newcomer.mp4", video.path, "video/mp4");
  const submitted = await apiRequest(url, "POST", "/v1/subtitles", { key, body: { video_url: files.url("/newcomer.mp4"), preset: "highlight", max_duration_seconds: 60 } });
  assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
  let job: Job;
  for (;;) {
    job = (await apiRequest(url, "GET", `/v1/jobs/${submitted.body.id}`, { key })).body as Job;
    if (job.status === "completed" || job.status === "failed" || job.status === "canceled") break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  assert.equal(job.status, "completed", `${JSON.stringify(job)}\n${service.output()}`);
  assert.equal(job.usage.billed_seconds, Math.ceil(video.durationSeconds));

  const mp4 = await fetch(job.video?.url ?? "");
  assert.equal(mp4.status, 200);
  const output = path.join(parent, "captioned.mp4");
  await writeFile(output, Buffer.from(await mp4.arrayBuffer()));
  const info = await probeMedia(output);
  assert.deepEqual([info.width, info.height, info.hasAudio], [640, 360, true]);
  const transcript = (await (await fetch(job.subtitles?.transcript_url ?? "")).json()) as { words: { text: string }[] };
  assert.ok(transcript.words.length > 0, "the speech was transcribed");

  // A supervisor's stop: SIGTERM to the process it started; the service and its database stop cleanly.
  service.child.kill("SIGTERM");
  const [code, signal] = await service.exited;
  assert.deepEqual([code, signal], [0, null], service.output());
  assert.equal(existsSync(path.join(clusterDir, "postmaster.pid")), false, "PostgreSQL stopped with the service");
});
