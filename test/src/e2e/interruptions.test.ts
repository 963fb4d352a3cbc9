import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pino from "pino";
import { CANCEL_FALLBACK_POLL_MS } from "@caption/gpu-worker";
import { descendantProcesses, makeSpeechVideo } from "@caption/gpu-worker/testing";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { spawnService, type LogEntry, type ServiceProcess } from "@caption/control-plane/testing";
import { startTestService, type TestService } from "../support/test-service.ts";

const TEXT = "This clip is long enough to cancel while it renders. It keeps talking for a while so the worker is busy.";

let files: TestHttpsServer;
let clipSeconds: number;
before(async () => {
  files = await startTestHttpsServer();
  // Long enough that a render is still running a grace period after it is seen to start; small, because what is
  // tested is how work stops and resumes, not the size (the whole job runs twice per worker test).
  const clip = await makeSpeechVideo({ text: TEXT, width: 640, height: 360, fps: 30, durationSeconds: 40 });
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
  // The in-process service's log, debug lines included: each ffmpeg run logs how it exited.
  const log: LogEntry[] = [];
  const logLine = async (match: (entry: LogEntry) => boolean, timeoutMs = 120_000): Promise<LogEntry> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = log.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such log line within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  before(async () => {
    const logger = pino({ level: "debug" }, { write: (line: string) => void log.push(JSON.parse(line) as LogEntry) });
    service = await startTestService({ env: { WORKER_CONCURRENCY: "1" }, logger });
  });
  after(() => service?.close());

  test("stops the render's ffmpeg on the cancel (killed by the attempt, mid-render), releases the reservation and leaves no files", async (t) => {
    const { api_key: key } = await service.createKey({ credits: 100 });
    const { body } = await service.call("POST", "/v1/subtitles", key, { video_url: files.url("/clip.mp4") });
    // Rendering, and ffmpeg has reported progress past the stage's start: it is encoding.
    const rendering = await service.waitForJob(key, body.id, (j) => (j.status === "rendering" && j.progress > 45) || j.status === "failed" || j.status === "completed");
    assert.equal(rendering.status, "rendering");
    const [renderer, ...others] = descendantProcesses(process.pid).filter((p) => p.name === "ffmpeg");
    assert.ok(renderer && others.length === 0, "one ffmpeg, rendering");
    assert.equal((await service.call("GET", "/v1/usage", key)).body.reserved_seconds, clipSeconds);

    const canceledAt = Date.now();
    const cancel = await service.call("POST", `/v1/jobs/${body.id}/cancel`, key);
    assert.deepEqual(cancel.body, { id: body.id, status: "canceled" });
    const stopped = await logLine((entry) => entry.msg === "job canceled; work stopped" && entry.job_id === body.id);
    // Promptness without a stopwatch: the worker acts on a cancel when its notification arrives (job-changes.test.ts),
    // and here that act stopped ffmpeg: its run was canceled through the attempt's signal and killed on it (an
    // aborted run is killed at once, media/ffmpeg.ts), before the attempt reported its work stopped; and the
    // render never finished. Every state of a job: gpu-worker/src/runtime/cancel-stops-work.test.ts.
    const exit = log.find((entry) => entry.msg === "ffmpeg exited" && entry.pid === renderer.pid);
    assert.ok(exit, "the render's ffmpeg logged its exit");
    assert.deepEqual([exit.job_id, exit.canceled, exit.signal, exit.exit_code], [body.id, true, "SIGKILL", null]);
    assert.ok(log.indexOf(exit) < log.indexOf(stopped));
    assert.equal(log.some((entry) => entry.msg === "captioned video rendered" && entry.job_id === body.id), false, "the render was cut short");
    t.diagnostic(`ffmpeg exited ${Number(exit.time) - canceledAt} ms after the cancel was sent (the worker hears of the cancel by NOTIFY; its fallback poll is every ${CANCEL_FALLBACK_POLL_MS} ms)`);

    const job = await service.waitForJob(key, body.id);
    assert.equal(job.status, "canceled");
    assert.deepEqual(job.usage, { reserved_seconds: 0, billed_seconds: 0 });
    const usage = (await service.call("GET", "/v1/usage", key)).body;
    assert.deepEqual(usage, { available_seconds: 100, reserved_seconds: 0, consumed_seconds: 0, active_jobs: 0, concurrency_limit: 4, stored_bytes: 0 });
    // The worker removes its scratch folder as the attempt unwinds.
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && (await scratchFoldersOf(service.dataDir, body.id)).length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(existsSync(path.join(service.dataDir, "files", body.id)), false, "no stored outputs");
    assert.deepEqual(await scratchFoldersOf(service.dataDir, body.id), [], "no scratch files");
  });
});

describe("workers that stop mid-job", () => {
  let service: TestService;
  const workers: ServiceProcess[] = [];
  // The shortest heartbeat pg-boss takes and a one-second retry: a dead worker's job is retried in about
  // 12 s rather than the 30–46 s of the defaults (docs/jobs.md), by the same mechanism.
  const timing = { JOB_HEARTBEAT_SECONDS: "10", JOB_RETRY_DELAY_SECONDS: "1" };
  before(async () => {
    service = await startTestService({ worker: false, env: timing });
  });
  after(async () => {
    for (const worker of workers) {
      if (!worker.running() || !worker.child.pid) continue;
      process.kill(-worker.child.pid, "SIGKILL");
      await worker.exited;
    }
    await service?.close();
  });

  const startWorker = (env: Record<string, string> = {}) => {
    // Its own process group, so the kill takes its ffmpeg and recognizer with it, as a crashed pod would.
    const worker = spawnService(
      "worker",
      { DATABASE_URL: service.database.url, DATA_DIR: service.dataDir, ALLOW_PRIVATE_VIDEO_URLS: "true", LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn", WORKER_CONCURRENCY: "1", PROCESSING_DEADLINE_BASE_SECONDS: "600", ...timing, ...env },
      { detached: true },
    );
    workers.push(worker);
    return worker;
  };

  test("another worker finishes the job and it is charged once; the dead worker's scratch space is reclaimed", async (t) => {
    const { api_key: key } = await service.createKey({ credits: 100 });
    const first = startWorker();
    const { body } = await service.call("POST", "/v1/subtitles", key, { video_url: files.url("/clip.mp4") });
    const busy = await service.waitForJob(key, body.id, (j) => j.status === "transcribing" || j.status === "rendering" || j.status === "completed" || j.status === "failed", 120_000);
    assert.ok(busy.status === "transcribing" || busy.status === "rendering", busy.status);
    const [scratch] = await scratchFoldersOf(service.dataDir, body.id);
    assert.ok(scratch && existsSync(path.join(scratch, "source")), "the attempt's download is in its scratch folder");
    process.kill(-(first.child.pid ?? 0), "SIGKILL");
    await first.exited;
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
    await replacement.stop();
  });

  test("SIGTERM: the worker stops within its grace period and the job is finished elsewhere, charged once", async () => {
    const { api_key: key } = await service.createKey({ credits: 100 });
    const leaving = startWorker({ SHUTDOWN_GRACE_SECONDS: "1" });
    const { body } = await service.call("POST", "/v1/subtitles", key, { video_url: files.url("/clip.mp4") });
    const busy = await service.waitForJob(key, body.id, (j) => j.status === "rendering" || j.status === "completed" || j.status === "failed", 120_000);
    assert.equal(busy.status, "rendering");
    leaving.child.kill("SIGTERM");
    assert.equal(await leaving.exited, 0, `a graceful stop exits cleanly; stderr:\n${leaving.stderr()}`);
    // The grace period bounded the stop, not the job: the worker gave up waiting and handed the job back.
    assert.ok(leaving.lines.some((entry) => entry.msg === "grace period over; releasing running jobs for retry"), "the grace period ran out");
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
