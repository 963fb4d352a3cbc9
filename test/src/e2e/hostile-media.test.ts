// Uploads built to get work for free, to make ffmpeg read or wait on what it should not, or to hold
// a worker: each, through the real API and worker, ends promptly in its documented state, is charged
// what was rendered (or nothing), and opens nothing beside its own download.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pino from "pino";
import type { Job } from "@caption/shared/api/job";
import { probeMedia, runFfmpeg } from "@caption/gpu-worker/media";
import { startCaptionWorker } from "@caption/gpu-worker";
import { accessTimeCanary, accessTimesWork, fifoCanary, type Canary, dashManifest, ffconcatScript, hlsPlaylist, truncateAfterIndex, understateMp4Duration, makeSpeechVideo } from "@caption/gpu-worker/testing";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { startTestService, type TestService } from "../support/test-service.ts";

const TEXT = "This clip says one thing and its header says another.";
const FPS = 10;

let service: TestService;
let files: TestHttpsServer;
let work: string;
let fifo: Canary;
let segment: Canary;

before(async () => {
  [service, files] = await Promise.all([
    // A drip is judged over one second here (20 s by default), so the test needs no long wait.
    startTestService({ env: { DOWNLOAD_THROUGHPUT_WINDOW_SECONDS: "1", DOWNLOAD_MIN_BYTES_PER_SECOND: "65536" } }),
    startTestHttpsServer(),
  ]);
  work = await mkdtemp(path.join(tmpdir(), "hostile-media-"));
  fifo = await fifoCanary(path.join(work, "canary.ts"));
  const clip = await makeSpeechVideo({ text: "Canary.", width: 160, height: 120, fps: FPS });
  segment = await accessTimeCanary(path.join(work, "canary.mp4"), await readFile(clip.path));
});
after(async () => {
  fifo?.close();
  await files?.close();
  await service?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function submit(target: TestService, route: string, credits: number, body: Record<string, unknown> = {}): Promise<{ key: string; job: Job }> {
  const { api_key: key } = await target.createKey({ credits });
  const submitted = await target.call("POST", "/v1/subtitles", key, { video_url: files.url(route), ...body });
  assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
  return { key, job: await target.waitForJob(key, submitted.body.id, undefined, 120_000) };
}

/** Failed with `code`, nothing reserved or charged, and a message that shows nothing of the worker's disk. */
async function expectFailed(target: TestService, key: string, job: Job, code: string, credits: number): Promise<void> {
  assert.equal(job.status, "failed", JSON.stringify(job));
  assert.equal(job.error?.code, code, JSON.stringify(job.error));
  assert.deepEqual(job.usage, { reserved_seconds: 0, billed_seconds: 0 });
  assert.doesNotMatch(job.error?.message ?? "", /(^|[\s'"(:])\/(tmp|data|work|var|srv|home|root)\b/, "no server path in the message");
  assert.ok(!(job.error?.message ?? "").includes(target.dataDir));
  const usage = (await target.call("GET", "/v1/usage", key)).body;
  assert.deepEqual(
    { available: usage.available_seconds, reserved: usage.reserved_seconds, consumed: usage.consumed_seconds },
    { available: credits, reserved: 0, consumed: 0 },
  );
}

/** The stored captioned video of a completed job, measured by its packets. */
async function rendered(target: TestService, job: Job) {
  return probeMedia(path.join(target.dataDir, "files", job.id, "captioned.mp4"));
}

describe("a container header that understates the duration", () => {
  let real: number;
  before(async () => {
    const source = await makeSpeechVideo({ text: TEXT, width: 160, height: 120, fps: FPS, durationSeconds: 8 });
    real = source.durationSeconds;
    const lying = path.join(work, "lying.mp4");
    await understateMp4Duration(source.path, lying, 1);
    assert.ok(Math.abs(((await probeMedia(lying)).declaredDurationSeconds ?? 0) - 1) < 0.01, "the header claims 1 s");
    files.serveFile("/lying.mp4", lying, "video/mp4");
  });

  test("is reserved, charged and rendered for the streams' real length, and the charge covers every rendered second", async () => {
    const { job } = await submit(service, "/lying.mp4", 600);
    assert.equal(job.status, "completed", JSON.stringify(job));
    assert.equal(job.usage.billed_seconds, Math.ceil(real), `billed for ${real} s, not the header's 1 s`);
    const output = await rendered(service, job);
    assert.ok(Math.abs(output.durationSeconds - real) < 0.15, `rendered ${output.durationSeconds} s of ${real} s`);
    assert.ok(output.durationSeconds <= job.usage.billed_seconds + 1 / FPS, "never more than billed plus one frame");
    assert.ok(output.durationSeconds > job.usage.billed_seconds - 1, "the charge is the rendered seconds, rounded up");
  });

  test("counts against max_duration_seconds with its real length", async () => {
    const { key, job } = await submit(service, "/lying.mp4", 600, { max_duration_seconds: 2 });
    await expectFailed(service, key, job, "DURATION_LIMIT_EXCEEDED", 600);
  });

  test("needs credit for its real length", async () => {
    const { key, job } = await submit(service, "/lying.mp4", 2);
    await expectFailed(service, key, job, "INSUFFICIENT_CREDITS", 2);
  });
});

describe("playlists, manifests and scripts served as video.mp4", () => {
  const cases = [
    ["an HLS playlist naming a local file", () => hlsPlaylist(fifo.path)],
    ["a live HLS playlist (no ENDLIST)", () => hlsPlaylist(segment.path, { live: true })],
    ["a DASH manifest naming a local file", () => dashManifest(segment.path)],
    ["an ffconcat script naming local files", () => `${ffconcatScript(fifo.path)}file '${segment.path}'\n`],
  ] as const;
  for (const [name, text] of cases) {
    test(`${name}: UNSUPPORTED_FORMAT, no charge, nothing else opened`, async () => {
      const route = `/${name.replace(/\W+/g, "-")}.mp4`;
      files.route(route, (_req, res) => res.writeHead(200, { "content-type": "video/mp4" }).end(text()));
      const { key, job } = await submit(service, route, 600);
      await expectFailed(service, key, job, "UNSUPPORTED_FORMAT", 600);
      assert.equal(await fifo.touched(), false, "the FIFO canary was never opened");
      if (await accessTimesWork(path.join(work, `atime-${route.slice(1)}`))) assert.equal(await segment.touched(), false, "the file canary was never read");
    });
  }
});

describe("a file corrupt after its index", () => {
  let declared: number;
  before(async () => {
    const source = await makeSpeechVideo({ text: TEXT, width: 160, height: 120, fps: FPS, durationSeconds: 8 });
    const cut = path.join(work, "cut.mp4");
    await runFfmpeg({ args: ["-v", "error", "-i", source.path, "-c", "copy", "-movflags", "+faststart", "-y", cut] });
    await truncateAfterIndex(cut, 0.5);
    declared = source.durationSeconds;
    files.serveFile("/cut.mp4", cut, "video/mp4");
  });

  test("is charged for the part that is there, which is what is rendered", async () => {
    const { job } = await submit(service, "/cut.mp4", 600);
    assert.equal(job.status, "completed", JSON.stringify(job));
    const output = await rendered(service, job);
    assert.ok(job.usage.billed_seconds < Math.ceil(declared), `billed ${job.usage.billed_seconds} s, the index claims ${declared} s`);
    assert.ok(job.usage.billed_seconds >= 1);
    assert.ok(output.durationSeconds <= job.usage.billed_seconds + 1 / FPS, `rendered ${output.durationSeconds} s for ${job.usage.billed_seconds} s billed`);
    assert.ok(output.durationSeconds > job.usage.billed_seconds - 1, "and the billed seconds were rendered");
  });
});

describe("a URL that serves a short broken file first and a long valid one after", () => {
  let broken: Buffer;
  let long: Buffer;
  before(async () => {
    const short = await readFile((await makeSpeechVideo({ text: "Short.", width: 160, height: 120, fps: FPS })).path);
    // An AAC decoder configuration no decoder opens: the file cannot be decoded.
    const config = short.indexOf(Buffer.from("0580808005", "hex"), short.indexOf(Buffer.from("esds")));
    assert.ok(config > 0);
    broken = Buffer.from(short);
    broken.fill(0xff, config + 5, config + 7);
    long = await readFile((await makeSpeechVideo({ text: TEXT, width: 64, height: 64, fps: 2, durationSeconds: 120 })).path);
  });

  /** Serves `first` on the first request to `route`, `later` on every other; counts requests. */
  function changing(route: string, first: Buffer, later: Buffer): () => number {
    let hits = 0;
    files.route(route, (_req, res) => {
      const body = ++hits === 1 ? first : later;
      res.writeHead(200, { "content-type": "video/mp4", "content-length": body.length }).end(body);
    });
    return () => hits;
  }

  test("the broken file is the upload's fault: UNSUPPORTED_FORMAT at once, no retry, no charge", async () => {
    const hits = changing("/flip.mp4", broken, long);
    const { key, job } = await submit(service, "/flip.mp4", 600);
    await expectFailed(service, key, job, "UNSUPPORTED_FORMAT", 600);
    assert.equal(hits(), 1, "not downloaded again");
  });

  describe("when an attempt is interrupted after its reservation", () => {
    let own: TestService;
    before(async () => {
      own = await startTestService({ env: { WORKER_CONCURRENCY: "1" } });
    });
    after(() => own?.close());

    test("the retry sees other bytes and fails SOURCE_CHANGED, releasing the first reservation", async () => {
      const firstVideo = await makeSpeechVideo({ text: `${TEXT} It keeps talking for a while so the worker is still busy.`, width: 160, height: 120, fps: FPS, durationSeconds: 20 });
      const reserved = Math.ceil((await probeMedia(firstVideo.path)).durationSeconds);
      const first = await readFile(firstVideo.path);
      const hits = changing("/swap.mp4", first, long);
      const { api_key: key } = await own.createKey({ credits: 600 });
      const submitted = await own.call("POST", "/v1/subtitles", key, { video_url: files.url("/swap.mp4") });
      const busy = await own.waitForJob(key, submitted.body.id, (j) => j.status === "transcribing" || j.status === "rendering" || j.status === "completed" || j.status === "failed");
      assert.ok(busy.status === "transcribing" || busy.status === "rendering", busy.status);
      assert.equal(busy.usage.reserved_seconds, reserved, "the first attempt reserved the first file's seconds");

      // The worker goes away mid-job; the job returns to the queue with its reservation.
      await own.worker?.stop({ graceSeconds: 0 });
      assert.equal((await own.waitForJob(key, submitted.body.id, (j) => j.status !== busy.status, 10_000)).status, "queued");
      const replacement = await startCaptionWorker(own.env, own.database.url, pino({ level: "silent" }));
      try {
        const job = await own.waitForJob(key, submitted.body.id, undefined, 120_000);
        await expectFailed(own, key, job, "SOURCE_CHANGED", 600);
        assert.equal(hits(), 2);
        const ledger = await own.database.db.selectFrom("credit_ledger").select(["kind", "seconds"]).where("job_id", "=", job.id).orderBy("id").execute();
        assert.deepEqual(ledger, [{ kind: "reserve", seconds: reserved }, { kind: "release", seconds: reserved }]);
      } finally {
        await replacement.stop({ graceSeconds: 0 });
      }
    });
  });
});

describe("a server that drips the body", () => {
  test("is cut off after one window below the minimum throughput: VIDEO_UNREACHABLE, no charge", async () => {
    files.route("/drip.mp4", (_req, res) => {
      res.writeHead(200, { "content-type": "video/mp4", "content-length": 50_000_000 });
      const timer = setInterval(() => res.write(Buffer.alloc(100)), 50);
      res.on("close", () => clearInterval(timer));
    });
    const { key, job } = await submit(service, "/drip.mp4", 600);
    await expectFailed(service, key, job, "VIDEO_UNREACHABLE", 600);
    assert.match(job.error?.message ?? "", /below the minimum of 65536 bytes\/s/);
  });
});

describe("a video that takes longer to process than its deadline", () => {
  let slow: TestService;
  before(async () => {
    // Half a second plus 1 % of the video's length: far less than any render needs.
    slow = await startTestService({ env: { PROCESSING_DEADLINE_BASE_SECONDS: "0.5", PROCESSING_DEADLINE_FACTOR: "0.01" } });
    files.serveFile("/deadline.mp4", (await makeSpeechVideo({ text: TEXT, width: 160, height: 120, fps: FPS, durationSeconds: 8 })).path, "video/mp4");
  });
  after(() => slow?.close());

  test("is stopped there: PROCESSING_TIMEOUT, no charge", async () => {
    const { key, job } = await submit(slow, "/deadline.mp4", 600);
    await expectFailed(slow, key, job, "PROCESSING_TIMEOUT", 600);
  });
});
