import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { createKey } from "../services/account-admin.ts";
import { spawnService, type ServiceProcess } from "../runtime/service-process.ts";

// Two API processes (`npm run api`, i.e. control-plane/src/cli/api.ts) over one database, as in a
// scaled-out deployment: every limit must hold across processes, not just within one.

const VIDEO = "https://videos.example.com/clip.mp4";

interface ApiProcess { url: string; service: ServiceProcess }

async function startApiProcess(databaseUrl: string, dataDir: string, signingSecret: string): Promise<ApiProcess> {
  const service = spawnService("api", { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, URL_SIGNING_SECRET: signingSecret });
  const listening = await service.waitForLine((entry) => entry.msg === "API listening" && typeof entry.url === "string", 60_000);
  return { url: String(listening.url), service };
}

async function stopApiProcess(api: ApiProcess | undefined): Promise<void> {
  await api?.service.stop();
}

let database: TestDatabase;
let dataDir: string;
let a: ApiProcess;
let b: ApiProcess;

before(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(tmpdir(), "caption-two-apis-"));
  const secret = randomBytes(32).toString("base64url");
  [a, b] = await Promise.all([startApiProcess(database.url, path.join(dataDir, "a"), secret), startApiProcess(database.url, path.join(dataDir, "b"), secret)]);
});

after(async () => {
  await Promise.all([stopApiProcess(a), stopApiProcess(b)]);
  await database?.dispose();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function call(api: ApiProcess, method: string, requestPath: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${api.url}${requestPath}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any, server: api === a ? "a" : "b" };
}

/**
 * Runs `attempt` (with a fresh key) until its requests fell into one rate-limit minute: a second try
 * at most, as an attempt takes far less than the minute between two boundaries.
 */
async function withinOneMinute<T>(attempt: () => Promise<{ keyId: string; result: T }>): Promise<T> {
  for (let tries = 0; ; tries++) {
    const { keyId, result } = await attempt();
    const windows = await database.db.selectFrom("rate_limit_windows").select("window_start").where("api_key_id", "=", keyId).execute();
    if (windows.length === 1) return result;
    assert.ok(tries < 1, "a minute boundary fell inside the experiment twice");
  }
}

async function keyIdOf(prefix: string): Promise<string> {
  const row = await database.db.selectFrom("api_keys").select("id").where("prefix", "=", prefix).executeTakeFirstOrThrow();
  return row.id;
}

describe("two API processes over one database", () => {
  test("both processes serve the same jobs", async () => {
    const { api_key } = await createKey(database.db, { name: "two-apis", scopes: ["subtitles:write"], credits: 600 });
    const created = await call(a, "POST", "/v1/subtitles", api_key, { video_url: VIDEO });
    assert.equal(created.status, 202);
    const read = await call(b, "GET", `/v1/jobs/${created.body.id}`, api_key);
    assert.equal(read.status, 200);
    assert.equal(read.body.status, "queued");
  });

  test("the per-key rate limit holds across processes, one after the other", async () => {
    const limit = 10;
    const statuses = await withinOneMinute(async () => {
      const key = await createKey(database.db, { name: "rate-seq", scopes: ["subtitles:read"], credits: 0, ratePerMinute: limit });
      const result: string[] = [];
      for (let i = 0; i < limit + 2; i++) {
        const res = await call(i % 2 === 0 ? a : b, "GET", "/v1/usage", key.api_key);
        result.push(`${res.server}:${res.status}`);
      }
      return { keyId: await keyIdOf(key.key_prefix), result };
    });
    assert.deepEqual(statuses, [...Array.from({ length: limit }, (_, i) => `${i % 2 === 0 ? "a" : "b"}:200`), "a:429", "b:429"]);
  });

  test("the per-key rate limit holds across processes under a concurrent burst", async () => {
    const limit = 20;
    const responses = await withinOneMinute(async () => {
      const key = await createKey(database.db, { name: "rate-burst", scopes: ["subtitles:read"], credits: 0, ratePerMinute: limit });
      const result = await Promise.all(Array.from({ length: limit * 3 }, (_, i) => call(i % 2 === 0 ? a : b, "GET", "/v1/usage", key.api_key)));
      return { keyId: await keyIdOf(key.key_prefix), result };
    });
    assert.equal(responses.filter((r) => r.status === 200).length, limit, "accepted in one window");
    const refused = responses.filter((r) => r.status === 429);
    assert.equal(refused.length, limit * 2);
    assert.ok(refused.every((r) => r.body.error.code === "RATE_LIMITED" && Number(r.headers.get("retry-after")) >= 1));
    assert.ok(refused.some((r) => r.server === "a") && refused.some((r) => r.server === "b"), "both processes enforce the shared count");
  });

  test("the per-account concurrency limit holds when submissions race across processes", async () => {
    const key = await createKey(database.db, { name: "concurrency", scopes: ["subtitles:write"], credits: 600, concurrency: 3 });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => call(i % 2 === 0 ? a : b, "POST", "/v1/subtitles", key.api_key, { video_url: VIDEO })));
    const accepted = results.filter((r) => r.status === 202);
    assert.equal(accepted.length, 3, results.map((r) => `${r.server}:${r.status}`).join(" "));
    assert.ok(results.filter((r) => r.status === 429).every((r) => r.body.error.code === "CONCURRENCY_LIMIT_EXCEEDED"));
    assert.equal(results.filter((r) => r.status === 429).length, 9);
    const jobs = await database.db.selectFrom("jobs").select("id").where("account_id", "=", key.account_id).execute();
    assert.equal(jobs.length, 3);

    // A slot freed through one process is usable through the other.
    const first = accepted[0]?.body.id as string;
    assert.equal((await call(a, "POST", `/v1/jobs/${first}/cancel`, key.api_key)).body.status, "canceled");
    assert.equal((await call(b, "POST", "/v1/subtitles", key.api_key, { video_url: VIDEO })).status, 202);
    assert.equal((await call(a, "POST", "/v1/subtitles", key.api_key, { video_url: VIDEO })).status, 429);
  });

  test("an idempotency key raced across processes yields one job", async () => {
    const key = await createKey(database.db, { name: "idempotency", scopes: ["subtitles:write"], credits: 600, concurrency: 100 });
    const body = { video_url: VIDEO, preset: "karaoke" };
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i % 2 === 0 ? a : b, "POST", "/v1/subtitles", key.api_key, body, { "Idempotency-Key": "raced-key" })));
    assert.ok(results.every((r) => r.status === 202), results.map((r) => `${r.server}:${r.status}`).join(" "));
    assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
    assert.equal(results.filter((r) => r.body.replayed === false).length, 1);
    const jobs = await database.db.selectFrom("jobs").select("id").where("account_id", "=", key.account_id).execute();
    assert.deepEqual(jobs.map((j) => j.id), [results[0]?.body.id]);

    const mismatch = await call(b, "POST", "/v1/subtitles", key.api_key, { ...body, preset: "glow" }, { "Idempotency-Key": "raced-key" });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.error.code, "IDEMPOTENCY_KEY_MISMATCH");
  });
});
