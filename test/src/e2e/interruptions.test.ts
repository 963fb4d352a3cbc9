import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { descendantProcesses } from "../../../gpu-worker/src/testing/process-tree.ts";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";
import { startTestHttpsServer, type TestHttpsServer } from "../../../gpu-worker/src/testing/https-server.ts";
import { makeSpeechVideo } from "../../../gpu-worker/src/testing/speech-video.ts";
import { ENTRY_POINTS } from "../support/service-process.ts";
import { startTestService, type TestService } from "../support/test-service.ts";

const TEXT = "This clip is long enough to cancel while it renders. It keeps talking for a while so the worker is busy.";

let files: TestHttpsServer;
let clipSeconds: number;
before(async () => {
  files = await startTestHttpsServer();
  const clip = await makeSpeechVideo({ text: TEXT, width: 1920, height: 1080, fps: 30, durationSeconds: 40 });
  clipSeconds = Math.ceil(clip.durationSeconds);
  files.serveFile("/clip.mp4", clip.path, "video/mp4");
});
after(() => files?.close());

/** The scratch folders of a job's attempts: DATA_DIR/work/<worker id>/<job id>-…. */
async function scratchFoldersOf(dataDir: string, jobId: string): Promise<string[]> {
  const workDir = path.join(dataDir, "work");
  if (!existsSync(workDir)) return [];
  const found: string[] = [];
  for (const worker of await readdir(workDir)) {
    const entries = await readdir(path.join(workDir, worker)).catch(() => []);
    found.push(...entries.filter((name) => name.startsWith(jobId)).map((name) => path.join(workDir, worker, name)));
  }
  return found;
}

describe("cancel while rendering", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ env: { WORKER_CONCURRENCY: "1" } });
  });
  after(() => service?.close());

  test("stops ffmpeg within 2 s, releases the reservation and leaves no files", async () => {
    const { api_key: key } = await service.createKey({ credits: 100 });
    const { body } = await service.call("POST", "/v1/subtitles", key, { video_url: files.url("/clip.mp4") });
    const rendering = await service.waitForJob(key, body.id, (j) => j.status === "rendering" || j.status === "failed" || j.status === "completed");
    assert.equal(rendering.status, "rendering");
    assert.ok(descendantProcesses(process.pid).some((p) => p.name === "ffmpeg"), "ffmpeg is rendering");
    assert.equal((await service.call("GET", "/v1/usage", key)).body.reserved_seconds, clipSeconds);

    const canceledAt = Date.now();
    const cancel = await service.call("POST", `/v1/jobs/${body.id}/cancel`, key);
    assert.deepEqual(cancel.body, { id: body.id, status: "canceled" });
    while (descendantProcesses(process.pid).some((p) => p.name === "ffmpeg") && Date.now() - canceledAt < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const stoppedAfter = Date.now() - canceledAt;
    assert.ok(stoppedAfter <= 2000, `ffmpeg still ran ${stoppedAfter} ms after the cancel`);

    const job = await service.waitForJob(key, body.id);
    assert.equal(job.status, "canceled");
    assert.deepEqual(job.usage, { reserved_seconds: 0, billed_seconds: 0 });
    const usage = (await service.call("GET", "/v1/usage", key)).body;
    assert.deepEqual(usage, { available_seconds: 100, reserved_seconds: 0, consumed_seconds: 0, active_jobs: 0, concurrency_limit: 4 });
    // The worker removes its scratch folder as the attempt unwinds.
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && (await scratchFoldersOf(service.dataDir, body.id)).length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(existsSync(path.join(service.dataDir, "files", body.id)), false, "no stored outputs");
    assert.deepEqual(await scratchFoldersOf(service.dataDir, body.id), [], "no scratch files");
  });
});

describe("workers that stop mid-job", () => {
  let service: TestService;
  const workers: ChildProcess[] = [];
  before(async () => {
    service = await startTestService({ worker: false });
  });
  after(async () => {
    for (const worker of workers) {
      if (worker.exitCode !== null || worker.signalCode !== null || !worker.pid) continue;
      const exited = new Promise((resolve) => worker.once("exit", resolve));
      process.kill(-worker.pid, "SIGKILL");
      await exited;
    }
    await service?.close();
  });

  const startWorker = (env: Record<string, string> = {}) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, ENTRY_POINTS.worker)], {
      cwd: REPO_ROOT,
      // Its own process group, so the kill takes its ffmpeg and recognizer with it, as a crashed pod would.
      detached: true,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, DATABASE_URL: service.database.url, DATA_DIR: service.dataDir, ALLOW_PRIVATE_VIDEO_URLS: "true", LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn", WORKER_CONCURRENCY: "1", METRICS_PORT: "0", PROCESSING_DEADLINE_BASE_SECONDS: "600", ...env },
    });
    workers.push(child);
    return child;
  };

  test("another worker finishes the job and it is charged once; the dead worker's scratch space is reclaimed", async (t) => {
    const { api_key: key } = await service.createKey({ credits: 100 });
    const first = startWorker();
    const { body } = await service.call("POST", "/v1/subtitles", key, { video_url: files.url("/clip.mp4") });
    const busy = await service.waitForJob(key, body.id, (j) => j.status === "transcribing" || j.status === "rendering" || j.status === "completed" || j.status === "failed", 120_000);
    assert.ok(busy.status === "transcribing" || busy.status === "rendering", busy.status);
    const [scratch] = await scratchFoldersOf(service.dataDir, body.id);
    assert.ok(scratch && existsSync(path.join(scratch, "source")), "the attempt's download is in its scratch folder");
    process.kill(-(first.pid ?? 0), "SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    const killedAt = Date.now();

    const replacement = startWorker();
    // The new worker reclaims the dead one's folder as it starts.
    const deadOwner = path.dirname(scratch);
    while (existsSync(deadOwner) && Date.now() - killedAt < 120_000) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(existsSync(deadOwner), false, "the dead worker's scratch space is reclaimed");
    // The dead worker's heartbeat lapses, the queue retries the attempt on the live worker.
    const attempts = () => service.database.db.selectFrom("jobs").select("attempts").where("id", "=", body.id).executeTakeFirstOrThrow();
    while ((await attempts()).attempts < 2 && Date.now() - killedAt < 300_000) await new Promise((resolve) => setTimeout(resolve, 100));
    t.diagnostic(`the retry started ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the SIGKILL`);
    const job = await service.waitForJob(key, body.id, undefined, 300_000);
    assert.equal(job.status, "completed", JSON.stringify(job));
    assert.deepEqual(job.usage, { reserved_seconds: 0, billed_seconds: clipSeconds });
    const ledger = await service.database.db.selectFrom("credit_ledger").select(["kind", "seconds"]).where("job_id", "=", body.id).orderBy("id").execute();
    assert.deepEqual(ledger, [{ kind: "reserve", seconds: clipSeconds }, { kind: "charge", seconds: clipSeconds }]);
    const row = await service.database.db.selectFrom("jobs").select("attempts").where("id", "=", body.id).executeTakeFirstOrThrow();
    assert.ok(row.attempts >= 2, `attempts ${row.attempts}`);
    const usage = (await service.call("GET", "/v1/usage", key)).body;
    assert.equal(usage.consumed_seconds, clipSeconds);
    assert.equal(usage.available_seconds, 100 - clipSeconds);
    // Idle now; stopped so that the next test's job can only go to the worker it starts.
    const stopped = once(replacement, "exit");
    replacement.kill("SIGTERM");
    await stopped;
  });

  test("SIGTERM: the worker stops within its grace period and the job is finished elsewhere, charged once", async () => {
    const { api_key: key } = await service.createKey({ credits: 100 });
    const leaving = startWorker({ SHUTDOWN_GRACE_SECONDS: "1" });
    const { body } = await service.call("POST", "/v1/subtitles", key, { video_url: files.url("/clip.mp4") });
    const busy = await service.waitForJob(key, body.id, (j) => j.status === "rendering" || j.status === "completed" || j.status === "failed", 120_000);
    assert.equal(busy.status, "rendering");
    const stoppedAt = Date.now();
    const exited = new Promise<number | null>((resolve) => leaving.once("exit", (code) => resolve(code)));
    leaving.kill("SIGTERM");
    assert.equal(await exited, 0, "a graceful stop exits cleanly");
    assert.ok(Date.now() - stoppedAt < 15_000, "the grace period bounds the stop");
    assert.ok(!descendantProcesses(process.pid).some((p) => p.name === "ffmpeg"), "its ffmpeg is gone");
    const released = await service.waitForJob(key, body.id, (j) => j.status !== "rendering", 10_000);
    assert.equal(released.status, "queued", "the interrupted job goes back to the queue");

    startWorker();
    const job = await service.waitForJob(key, body.id, undefined, 300_000);
    assert.equal(job.status, "completed", JSON.stringify(job));
    const ledger = await service.database.db.selectFrom("credit_ledger").select(["kind", "seconds"]).where("job_id", "=", body.id).orderBy("id").execute();
    assert.deepEqual(ledger, [{ kind: "reserve", seconds: clipSeconds }, { kind: "charge", seconds: clipSeconds }]);
  });
});
