import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { grantCredits } from "@caption/shared/db/credit-ledger";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { testId } from "@caption/shared/testing/ids";

const VIDEO = "https://videos.example.com/clip.mp4";
let t: TestApi;
let key: string;
let accountId: string;

before(async () => {
  t = await startTestApi();
  ({ api_key: key, account_id: accountId } = await t.createKey({ concurrency: 1000 }));
});
after(() => t.close());

const submit = (body: unknown, headers: Record<string, string> = {}, apiKey = key) => t.request("POST", "/v1/subtitles", { key: apiKey, body, headers });

describe("authentication and scopes", () => {
  test("missing, malformed, unknown and revoked keys are 401 UNAUTHORIZED", async () => {
    const revoked = await t.createKey();
    await t.database.db.updateTable("api_keys").set({ revoked_at: new Date() }).where("prefix", "=", revoked.key_prefix).execute();
    const wrongSecret = key.slice(0, -4) + (key.endsWith("AAAA") ? "BBBB" : "AAAA");
    for (const candidate of [undefined, "nonsense", "cap_000000000000_" + "x".repeat(32), wrongSecret, revoked.api_key]) {
      for (const [method, path] of [["GET", "/v1/usage"], ["GET", `/v1/jobs/${testId("job")}`], ["POST", `/v1/jobs/${testId("job")}/cancel`]] as const) {
        const res = await t.request(method, path, { key: candidate });
        assert.equal(res.status, 401, `${method} ${path} with ${candidate}`);
        assertErrorShape(res.body, "UNAUTHORIZED");
      }
      const res = await t.request("POST", "/v1/subtitles", { key: candidate, body: { video_url: VIDEO } });
      assert.equal(res.status, 401);
    }
  });

  test("a read-only key can read but not submit or cancel", async () => {
    const reader = await t.createKey({ scopes: ["subtitles:read"] });
    assert.equal((await t.request("GET", "/v1/usage", { key: reader.api_key })).status, 200);
    const res = await submit({ video_url: VIDEO }, {}, reader.api_key);
    assert.equal(res.status, 401);
    assertErrorShape(res.body, "INSUFFICIENT_SCOPE");
    assert.match(res.headers.get("www-authenticate") ?? "", /insufficient_scope/);
    const cancel = await t.request("POST", `/v1/jobs/${testId("job")}/cancel`, { key: reader.api_key });
    assert.equal(cancel.status, 401);
    assertErrorShape(cancel.body, "INSUFFICIENT_SCOPE");
  });

  test("presets and the OpenAPI document are public", async () => {
    assert.equal((await t.request("GET", "/v1/presets")).status, 200);
    assert.equal((await t.request("GET", "/v1/openapi.json")).status, 200);
  });
});

describe("jobs", () => {
  test("a fresh job reads back queued with Retry-After: 5, no results, nothing billed", async () => {
    const { body: created } = await submit({ video_url: VIDEO });
    const res = await t.request("GET", `/v1/jobs/${created.id}`, { key });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("retry-after"), "5");
    assert.equal(res.body.id, created.id);
    assert.equal(res.body.status, "queued");
    assert.equal(res.body.progress, 0);
    assert.ok(!Number.isNaN(Date.parse(res.body.created_at)));
    assert.equal(res.body.expires_at, null);
    assert.equal(res.body.video, null);
    assert.deepEqual(res.body.subtitles, { srt_url: null, transcript_url: null, vtt_url: null, ass_url: null, quality_url: null });
    assert.equal(res.body.quality, null, "no quality summary before completion");
    assert.equal(res.body.source_job_id, null, "a submitted video renders no other job");
    assert.deepEqual(res.body.usage, { reserved_seconds: 0, billed_seconds: 0 });
    assert.equal(res.body.error, null);
  });

  test("an omitted max_duration_seconds is stored as 600; a given one as given", async () => {
    // The OpenAPI document gives the default in words only (a `default` makes generated clients' types
    // require the field), so it is the service that must apply it.
    const stored = async (body: Record<string, unknown>) => {
      const res = await submit({ video_url: VIDEO, ...body });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      return (await t.database.db.selectFrom("jobs").select("max_duration_seconds").where("id", "=", res.body.id).executeTakeFirstOrThrow()).max_duration_seconds;
    };
    assert.equal(await stored({}), 600);
    assert.equal(await stored({ max_duration_seconds: 45 }), 45);
  });

  test("another account's job is 404 for reading and cancelling", async () => {
    const { body: created } = await submit({ video_url: VIDEO });
    const other = await t.createKey();
    const read = await t.request("GET", `/v1/jobs/${created.id}`, { key: other.api_key });
    assert.equal(read.status, 404);
    assertErrorShape(read.body, "NOT_FOUND");
    const cancel = await t.request("POST", `/v1/jobs/${created.id}/cancel`, { key: other.api_key });
    assert.equal(cancel.status, 404);
    assert.equal((await t.request("GET", `/v1/jobs/${created.id}`, { key })).body.status, "queued", "the owner's job is untouched");
    assert.equal((await t.request("GET", "/v1/jobs/job_01ARZ3NDEKTSV4RRFFQ69G5FAV", { key })).status, 404);
  });

  test("cancel of a queued job, then of the terminal job", async () => {
    const { body: created } = await submit({ video_url: VIDEO });
    const first = await t.request("POST", `/v1/jobs/${created.id}/cancel`, { key });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { id: created.id, status: "canceled" });
    const again = await t.request("POST", `/v1/jobs/${created.id}/cancel`, { key });
    assert.deepEqual(again.body, { id: created.id, status: "canceled" });
    const read = await t.request("GET", `/v1/jobs/${created.id}`, { key });
    assert.equal(read.body.status, "canceled");
    assert.equal(read.headers.get("retry-after"), null);
  });

  test("cancel of a completed job keeps it completed and charged", async () => {
    const { body: created } = await submit({ video_url: VIDEO });
    await t.database.db.transaction().execute(async (trx) => {
      await trx.insertInto("credit_ledger").values({ account_id: accountId, kind: "reserve", seconds: 7, job_id: created.id, note: null }).execute();
      await trx.insertInto("credit_ledger").values({ account_id: accountId, kind: "charge", seconds: 7, job_id: created.id, note: null }).execute();
      await trx.updateTable("jobs").set({ status: "completed", progress: 100, billed_seconds: 7 }).where("id", "=", created.id).execute();
    });
    const usageBefore = (await t.request("GET", "/v1/usage", { key })).body;
    const res = await t.request("POST", `/v1/jobs/${created.id}/cancel`, { key });
    assert.deepEqual(res.body, { id: created.id, status: "completed" });
    assert.deepEqual((await t.request("GET", "/v1/usage", { key })).body, usageBefore, "no refund");
  });
});

describe("idempotency", () => {
  test("same key and body replays the original job", async () => {
    const body = { video_url: VIDEO, preset: "karaoke", style: { text_color: "#ffffff", outline: { thickness: 2 } } };
    const first = await submit(body, { "Idempotency-Key": "replay-1" });
    const reordered = { style: { outline: { thickness: 2 }, text_color: "#ffffff" }, preset: "karaoke", video_url: VIDEO };
    const second = await submit(reordered, { "Idempotency-Key": "replay-1" });
    assert.equal(first.status, 202);
    assert.equal(second.status, 202);
    assert.equal(second.body.id, first.body.id);
    assert.equal(second.body.replayed, true);
    assert.equal(first.body.replayed, false);
    const jobs = await t.database.db.selectFrom("jobs").select("id").where("id", "=", first.body.id).execute();
    assert.equal(jobs.length, 1);
  });

  test("same key with a different body is 400 IDEMPOTENCY_KEY_MISMATCH", async () => {
    await submit({ video_url: VIDEO }, { "Idempotency-Key": "mismatch-1" });
    const res = await submit({ video_url: VIDEO, preset: "smash" }, { "Idempotency-Key": "mismatch-1" });
    assert.equal(res.status, 400);
    assertErrorShape(res.body, "IDEMPOTENCY_KEY_MISMATCH");
  });

  test("keys are scoped per account", async () => {
    const other = await t.createKey();
    const mine = await submit({ video_url: VIDEO }, { "Idempotency-Key": "shared-key" });
    const theirs = await submit({ video_url: VIDEO }, { "Idempotency-Key": "shared-key" }, other.api_key);
    assert.notEqual(mine.body.id, theirs.body.id);
    assert.equal(theirs.body.replayed, false);
  });

  test("a failed validation is not remembered", async () => {
    assert.equal((await submit({ video_url: "nope" }, { "Idempotency-Key": "bad-first" })).status, 400);
    const res = await submit({ video_url: VIDEO }, { "Idempotency-Key": "bad-first" });
    assert.equal(res.status, 202);
    assert.equal(res.body.replayed, false);
  });

  test("racing duplicates create one job and one replay", async () => {
    const body = { video_url: VIDEO, preset: "glow" };
    const results = await Promise.all(Array.from({ length: 8 }, () => submit(body, { "Idempotency-Key": "race-1" })));
    assert.ok(results.every((r) => r.status === 202));
    const ids = new Set(results.map((r) => r.body.id));
    assert.equal(ids.size, 1);
    assert.equal(results.filter((r) => !r.body.replayed).length, 1);
    const [id] = ids;
    const queued = await t.database.db.selectFrom("jobs").select("id").where("id", "=", id as string).execute();
    assert.equal(queued.length, 1);
  });

  test("without a key, identical submissions create separate jobs", async () => {
    const a = await submit({ video_url: VIDEO });
    const b = await submit({ video_url: VIDEO });
    assert.notEqual(a.body.id, b.body.id);
  });

  test("an over-long key is rejected", async () => {
    const res = await submit({ video_url: VIDEO }, { "Idempotency-Key": "k".repeat(256) });
    assert.equal(res.status, 400);
  });
});

describe("credits, limits and usage", () => {
  test("402 INSUFFICIENT_CREDITS when nothing is available", async () => {
    const broke = await t.createKey({ credits: 0 });
    const res = await submit({ video_url: VIDEO }, {}, broke.api_key);
    assert.equal(res.status, 402);
    assertErrorShape(res.body, "INSUFFICIENT_CREDITS");
    await grantCredits(t.database.db, broke.account_id, 5);
    assert.equal((await submit({ video_url: VIDEO }, {}, broke.api_key)).status, 202);
  });

  test("429 CONCURRENCY_LIMIT_EXCEEDED with Retry-After at the account's limit", async () => {
    const limited = await t.createKey({ concurrency: 2 });
    assert.equal((await submit({ video_url: VIDEO }, {}, limited.api_key)).status, 202);
    const second = await submit({ video_url: VIDEO }, {}, limited.api_key);
    assert.equal(second.status, 202);
    const third = await submit({ video_url: VIDEO }, {}, limited.api_key);
    assert.equal(third.status, 429);
    assertErrorShape(third.body, "CONCURRENCY_LIMIT_EXCEEDED");
    assert.ok(Number(third.headers.get("retry-after")) > 0);
    await t.request("POST", `/v1/jobs/${second.body.id}/cancel`, { key: limited.api_key });
    assert.equal((await submit({ video_url: VIDEO }, {}, limited.api_key)).status, 202, "a finished job frees a slot");
  });

  test("concurrent submissions never exceed the concurrency limit", async () => {
    const limited = await t.createKey({ concurrency: 3 });
    const results = await Promise.all(Array.from({ length: 10 }, () => submit({ video_url: VIDEO }, {}, limited.api_key)));
    assert.equal(results.filter((r) => r.status === 202).length, 3);
    assert.equal(results.filter((r) => r.status === 429).length, 7);
  });

  test("usage arithmetic follows the ledger", async () => {
    const acct = await t.createKey({ credits: 100 });
    const usage = async () => (await t.request("GET", "/v1/usage", { key: acct.api_key })).body;
    const quiet = { available_seconds: 100, reserved_seconds: 0, consumed_seconds: 0, active_jobs: 0, concurrency_limit: 4, stored_bytes: 0 };
    assert.deepEqual(await usage(), quiet);
    const a = (await submit({ video_url: VIDEO }, {}, acct.api_key)).body.id;
    const b = (await submit({ video_url: VIDEO }, {}, acct.api_key)).body.id;
    assert.equal((await usage()).active_jobs, 2);
    const db = t.database.db;
    await db.insertInto("credit_ledger").values([
      { account_id: acct.account_id, kind: "reserve", seconds: 30, job_id: a, note: null },
      { account_id: acct.account_id, kind: "reserve", seconds: 20, job_id: b, note: null },
    ]).execute();
    assert.deepEqual(await usage(), { ...quiet, available_seconds: 50, reserved_seconds: 50, active_jobs: 2 });
    await db.insertInto("credit_ledger").values({ account_id: acct.account_id, kind: "charge", seconds: 30, job_id: a, note: null }).execute();
    await db.updateTable("jobs").set({ status: "completed", billed_seconds: 30 }).where("id", "=", a).execute();
    await t.request("POST", `/v1/jobs/${b}/cancel`, { key: acct.api_key });
    assert.deepEqual(await usage(), { ...quiet, available_seconds: 70, consumed_seconds: 30 });
  });
});

describe("errors and service endpoints", () => {
  test("unknown routes are 404 in the error shape", async () => {
    const res = await t.request("GET", "/v2/nothing");
    assert.equal(res.status, 404);
    assertErrorShape(res.body, "NOT_FOUND");
  });

  test("a wrong method is 405 in the error shape", async () => {
    const res = await t.request("DELETE", "/v1/presets");
    assert.equal(res.status, 405);
    assertErrorShape(res.body, "METHOD_NOT_ALLOWED");
  });

  test("an incoming X-Request-Id is kept", async () => {
    const res = await t.request("GET", "/v1/usage", { headers: { "x-request-id": "client-123" } });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.request_id, "client-123");
  });

  test("health and readiness", async () => {
    assert.deepEqual((await t.request("GET", "/healthz")).body, { status: "ok" });
    const ready = await t.request("GET", "/readyz");
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, "ready");
  });
});
