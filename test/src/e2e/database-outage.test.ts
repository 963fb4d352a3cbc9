import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { createDatabase, type Db } from "@caption/shared/db/database";
import { createKey } from "@caption/control-plane";
import { makeSpeechVideo } from "@caption/gpu-worker/testing";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { apiRequest, spawnService, type ApiRequestOptions, type ApiResponse, type LogEntry, type ServiceProcess } from "@caption/control-plane/testing";
import { startRestartablePostgres, type RestartablePostgres } from "../support/restartable-postgres.ts";

// PostgreSQL restarted and stopped under the distributed service — two API processes and a worker
// with a job in flight — on a cluster of this test's own. Times are measured and reported (see the
// docs/operations.md "Surviving the database"), never asserted.

const TEXT = "The database goes away while this clip is being captioned. It comes back, and the job still finishes and is charged once.";
const STATUSES_IN_FLIGHT = new Set(["ingesting", "transcribing", "rendering"]);
const CLIENTS_PER_API = 2;

let postgres: RestartablePostgres;
let files: TestHttpsServer;
let clipSeconds: number;
let dataDir: string;
let db: Db;
const processes: ServiceProcess[] = [];

before(async () => {
  // One after the other, so that when one fails `after` still closes the other (an open server would keep this file from ending).
  files = await startTestHttpsServer();
  postgres = await startRestartablePostgres();
  const clip = await makeSpeechVideo({ text: TEXT, width: 640, height: 360, fps: 25 });
  clipSeconds = Math.ceil(clip.durationSeconds);
  files.serveFile("/clip.mp4", clip.path, "video/mp4");
  dataDir = await mkdtemp(path.join(tmpdir(), "database-outage-"));
  // The test's own connection outlives the restarts like the service's do.
  db = createDatabase(postgres.url, { max: 2 });
});

after(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await db?.destroy();
  await files?.close();
  await postgres?.dispose();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function start(entry: Parameters<typeof spawnService>[0], env: Record<string, string> = {}): ServiceProcess {
  const service = spawnService(entry, {
    DATABASE_URL: postgres.url,
    DATA_DIR: dataDir,
    URL_SIGNING_SECRET: "outage-test-signing-secret-of-32-characters",
    ALLOW_PRIVATE_VIDEO_URLS: "true",
    WORKER_CONCURRENCY: "1",
    ...env,
  });
  processes.push(service);
  return service;
}

const urlOf = async (api: ServiceProcess, message: string) => String((await api.waitForLine((l) => l.msg === message)).url);
const lineFor = (jobId: string, message: string) => (l: LogEntry) => l.job_id === jobId && l.msg === message;

interface Answer { api: number; status: number; sent: number; at: number; code?: string; retryAfter: string | null }

/**
 * Clients calling both APIs until stopped — the job, the usage, and the job's submission replayed by
 * its idempotency key (a transaction, as every submission is) — with every answer kept. Two clients
 * per API keep transactions open often enough that a restart lands inside some: without the
 * lifelong error listener of shared/src/db/database.ts an API process died in each run tried.
 */
function callContinuously(
  apis: { url: string; process: ServiceProcess }[],
  key: string,
  jobId: string,
  submission: { body: unknown; headers: Record<string, string> },
) {
  const urls = apis.map((api) => api.url);
  const answers: Answer[] = [];
  let running = true;
  const calls: [string, string, ApiRequestOptions][] = [["GET", `/v1/jobs/${jobId}`, {}], ["GET", "/v1/usage", {}], ["POST", "/v1/subtitles", submission]];
  const clients = urls.flatMap((url, api) => Array.from({ length: CLIENTS_PER_API }, () => ({ url, api })));
  const loops = clients.map(async ({ url, api }) => {
    for (let i = 0; running; i++) {
      const [method, route, extra] = calls[i % calls.length] ?? calls[0] ?? ["GET", "/healthz", {}];
      const sent = Date.now();
      const response: ApiResponse | undefined = await apiRequest(url, method, route, { key, ...extra }).catch(() => undefined);
      answers.push({ api, status: response?.status ?? 0, sent, at: Date.now(), code: response?.body?.error?.code, retryAfter: response?.headers.get("retry-after") ?? null });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  return {
    answers,
    /** Each API's first success after `since`: when it was answered and when it was sent, in ms after `since`. */
    async servingAgain(since: number): Promise<string[]> {
      return Promise.all(apis.map(async ({ process: service }, api) => {
        while (Date.now() - since < 60_000) {
          const ok = answers.find((a) => a.api === api && a.at >= since && a.status >= 200 && a.status < 300);
          if (ok) return `${ok.at - since} ms (sent at ${ok.sent - since} ms)`;
          assert.ok(service.running(), `API ${api} exited:\n${service.stderr().slice(-2000)}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        throw new Error(`API ${api} did not answer 2xx within 60 s of the database's return`);
      }));
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

async function jobRow(jobId: string) {
  return db.selectFrom("jobs").select(["status", "attempts"]).where("id", "=", jobId).executeTakeFirstOrThrow();
}

/** Polls the job's row every 20 ms until `done` holds; resolves with when it first did. */
async function whenJob(jobId: string, done: (row: { status: string; attempts: number }) => boolean, timeoutMs = 240_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await jobRow(jobId).catch(() => undefined);
    if (row && done(row)) return Date.now();
    if (Date.now() > deadline) throw new Error(`job ${jobId}: condition not met within ${timeoutMs} ms (now ${JSON.stringify(row)})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("PostgreSQL restarts under two APIs and a worker", () => {
  test("no process exits, clients get only 200 or 503, the interrupted attempt is logged and requeued, the job completes charged once", async (t) => {
    const [apiA, apiB] = [start("api"), start("api")];
    const urls = await Promise.all([urlOf(apiA, "API listening"), urlOf(apiB, "API listening")]);
    // The worker once the APIs have migrated the database, as a deployment runs its migration first: a
    // worker that registers before the schema exists stops at start-up (a race this test is not about).
    const worker = start("worker");
    await worker.waitForLine((l) => l.msg === "worker starting");
    const { api_key: key } = await createKey(db, { name: "outage", scopes: ["subtitles:write"], credits: 600, ratePerMinute: 1_000_000 });
    const submission = { body: { video_url: files.url("/clip.mp4") }, headers: { "Idempotency-Key": "outage" } };
    const submitted = await apiRequest(urls[0] ?? "", "POST", "/v1/subtitles", { key, ...submission });
    assert.equal(submitted.status, 202);
    const jobId = String(submitted.body.id);
    const traffic = callContinuously([{ url: urls[0] ?? "", process: apiA }, { url: urls[1] ?? "", process: apiB }], key, jobId, submission);
    t.after(() => traffic.stop());

    // 1. Stopped for as long as the attempt needs to reach its next database write: it is cut off.
    await whenJob(jobId, (row) => STATUSES_IN_FLIGHT.has(row.status));
    await postgres.stop();
    const interrupted = await worker.waitForLine(lineFor(jobId, "attempt interrupted; the job will be retried"));
    await postgres.start();
    const back = Date.now();
    const [servingA, servingB] = await traffic.servingAgain(back);
    let seen: { status: string; attempts: number } | undefined;
    const requeued = (await whenJob(jobId, (row) => ((seen = row), row.status === "queued" || row.attempts >= 2))) - back;
    // Shown as queued again by the interrupted attempt itself, before the queue's retry (5–10 s later) starts the next one.
    assert.deepEqual(seen && { status: seen.status, attempts: seen.attempts }, { status: "queued", attempts: 1 });
    // The line names the job and the cause, and was written while the database was down.
    assert.equal(interrupted.job_id, jobId);
    assert.match(String((interrupted.err as { message?: string } | undefined)?.message), /ECONNREFUSED|Connection terminated|terminating connection|shutting down|not queryable/);

    // 2. `pg_ctl restart -m fast` while the retried attempt runs.
    await whenJob(jobId, (row) => row.attempts >= 2 && STATUSES_IN_FLIGHT.has(row.status));
    const restarting = Date.now();
    await postgres.restart();
    const restarted = Date.now();
    const [servingA2, servingB2] = await traffic.servingAgain(restarted);

    await whenJob(jobId, (row) => row.status === "completed" || row.status === "failed");
    await traffic.stop();
    t.diagnostic(`stop–start: the APIs answered 2xx again ${servingA} / ${servingB} after the database was back; the job read "queued" again after ${requeued} ms`);
    t.diagnostic(`restart -m fast (took ${restarted - restarting} ms): the APIs answered 2xx again ${servingA2} / ${servingB2} after it returned`);

    const job = (await apiRequest(urls[1] ?? "", "GET", `/v1/jobs/${jobId}`, { key })).body;
    const workerLog = worker.lines.filter((l) => l.job_id === jobId || (l.level ?? 0) >= 40).map((l) => JSON.stringify(l)).join("\n");
    assert.equal(job.status, "completed", `${JSON.stringify(job)}\nworker:\n${workerLog}`);
    assert.deepEqual(job.usage, { reserved_seconds: 0, billed_seconds: clipSeconds });
    const ledger = await db.selectFrom("credit_ledger").select(["kind", "seconds"]).where("job_id", "=", jobId).orderBy("id").execute();
    assert.deepEqual(ledger, [{ kind: "reserve", seconds: clipSeconds }, { kind: "charge", seconds: clipSeconds }]);

    for (const service of [apiA, apiB, worker]) {
      assert.ok(service.running(), `${service.child.pid} is still running`);
      assert.doesNotMatch(service.stderr(), /Unhandled 'error' event|uncaught/i);
    }
    const statuses = new Set(traffic.answers.map((a) => a.status));
    assert.deepEqual([...statuses].sort(), [200, 202, 503], `answers: ${[...statuses].join(", ")}`);
    const unavailable = traffic.answers.filter((a) => a.status === 503);
    assert.ok(unavailable.every((a) => a.code === "SERVICE_UNAVAILABLE" && a.retryAfter === "5"));
  });
});

describe("start-up while PostgreSQL is down", () => {
  test("API, worker and `npm start` wait (alive, not ready), serve once it is up; a bounded wait ends in one line", async (t) => {
    await postgres.stop();
    const waiting = (l: LogEntry) => l.msg === "database unreachable; waiting for it";
    const api = start("api");
    const worker = start("worker");
    const embedded = start("embedded", { DATA_DIR: path.join(dataDir, `embedded-${randomBytes(4).toString("hex")}`) });
    const impatient = start("api", { DATABASE_STARTUP_TIMEOUT_SECONDS: "1" });
    await Promise.all([api, worker, embedded].map((service) => service.waitForLine(waiting)));

    for (const service of [api, embedded]) {
      const url = await urlOf(service, "API started; ready once the database answers");
      assert.equal((await apiRequest(url, "GET", "/healthz")).status, 200, "alive");
      assert.equal((await apiRequest(url, "GET", "/readyz")).status, 503, "not ready");
      const refused = await apiRequest(url, "GET", "/v1/usage", { key: "cap_whatever" });
      assert.equal(refused.status, 503);
      assert.equal(refused.body.error.code, "SERVICE_UNAVAILABLE");
      assert.equal(refused.headers.get("retry-after"), "5");
    }

    assert.equal(await impatient.exited, 1);
    const fatal = impatient.lines.filter((l) => l.level === 60);
    assert.equal(fatal.length, 1);
    assert.match(String(fatal[0]?.msg), /database was unreachable for 1 s \(DATABASE_STARTUP_TIMEOUT_SECONDS\)/);

    await postgres.start();
    const up = Date.now();
    const [apiReady, workerReady, embeddedReady] = await Promise.all([
      api.waitForLine((l) => l.msg === "API listening"),
      worker.waitForLine((l) => l.msg === "worker starting"),
      embedded.waitForLine((l) => l.msg === "caption service ready"),
    ].map((line) => line.then(() => Date.now() - up)));
    t.diagnostic(`ready after the database came up: API ${apiReady} ms, worker ${workerReady} ms, npm start ${embeddedReady} ms`);
    assert.equal((await apiRequest(await urlOf(api, "API listening"), "GET", "/readyz")).status, 200);
    for (const service of [api, worker, embedded]) assert.equal(await service.stop(), 0, "a clean stop");
  });
});
