import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { insertCompletedJob } from "@caption/shared/testing/job-rows";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { testId } from "@caption/shared/testing/ids";

// POST /v1/jobs/{id}/renders against completed source rows (no worker: the new jobs stay queued).

let t: TestApi;
let key: string;
let accountId: string;
const HOUR = 3600_000;
// The source rows last 3 s (insertCompletedJob).
const DURATION = 3;
const word = (text: string, start: number, end: number) => ({ text, start, end });
const WORDS = [word("Hello", 0.2, 0.5), word("world", 0.6, 1)];

before(async () => {
  t = await startTestApi();
  ({ api_key: key, account_id: accountId } = await t.createKey({ concurrency: 1000 }));
});
after(() => t.close());

/** A completed job of the account, its files kept for another hour unless `row` says otherwise. */
async function sourceJob(row: Parameters<typeof insertCompletedJob>[1]["row"] = {}, owner = accountId): Promise<string> {
  const id = testId("job");
  await insertCompletedJob(t.database.db, { id, accountId: owner, expiresAt: new Date(Date.now() + HOUR), row: { preset: "box", style: JSON.stringify({ text_color: "#FF0000" }), ...row } });
  return id;
}

const renders = (id: string, body: unknown, headers: Record<string, string> = {}, withKey = key) => t.request("POST", `/v1/jobs/${id}/renders`, { key: withKey, body, headers });


describe("the new job", () => {
  test("is queued, carries source_job_id, and inherits what the request leaves out", async () => {
    const source = await sourceJob({ language: "de", max_duration_seconds: 30 });
    const res = await renders(source, { words: WORDS });
    assert.equal(res.status, 202);
    assert.equal(res.body.status, "queued");
    assert.equal(res.body.replayed, false);
    assert.match(res.body.id, /^job_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(res.headers.get("location"), res.body.status_url);
    const job = await t.request("GET", `/v1/jobs/${res.body.id}`, { key });
    assert.equal(job.body.source_job_id, source);
    assert.equal(job.body.status, "queued");
    assert.deepEqual(job.body.usage, { reserved_seconds: 0, billed_seconds: 0 });
    const row = await t.database.db.selectFrom("jobs").selectAll().where("id", "=", res.body.id).executeTakeFirstOrThrow();
    assert.equal(row.kind, "render");
    assert.deepEqual(row.words, WORDS);
    assert.equal(row.preset, "box");
    assert.deepEqual(row.style, { text_color: "#FF0000" });
    assert.equal(row.language, "de");
    assert.equal(row.max_duration_seconds, 30);
  });

  test("takes the request's preset and style, and no words when none are sent", async () => {
    const res = await renders(await sourceJob(), { preset: "karaoke", style: { position: "top" } });
    const row = await t.database.db.selectFrom("jobs").selectAll().where("id", "=", res.body.id).executeTakeFirstOrThrow();
    assert.equal(row.preset, "karaoke");
    assert.deepEqual(row.style, { position: "top" });
    assert.equal(row.words, null, "the worker takes the source transcript's words");
  });

  test("canceling a queued render job ends it canceled and releases nothing: not its source's charge, files or renderability", async () => {
    const owner = await t.createKey({ credits: 600 });
    const source = await sourceJob({}, owner.account_id);
    // The source was reserved and charged its 3 s, as a worker does.
    await t.database.db.insertInto("credit_ledger").values([
      { account_id: owner.account_id, kind: "reserve", seconds: DURATION, job_id: source, note: null },
      { account_id: owner.account_id, kind: "charge", seconds: DURATION, job_id: source, note: null },
    ]).execute();
    const ledger = () => t.database.db.selectFrom("credit_ledger").select(["kind", "seconds", "job_id"]).where("account_id", "=", owner.account_id).orderBy("id").execute();
    const sourceRow = () => t.database.db.selectFrom("jobs").select(["status", "expires_at", "files_deleted_at", "video_key", "source_video_key", "billed_seconds"]).where("id", "=", source).executeTakeFirstOrThrow();
    const [ledgerBefore, sourceBefore] = [await ledger(), await sourceRow()];
    const usageBefore = (await t.request("GET", "/v1/usage", { key: owner.api_key })).body;

    const render = await renders(source, { words: WORDS }, {}, owner.api_key);
    assert.equal(render.status, 202);
    const canceled = await t.request("POST", `/v1/jobs/${render.body.id}/cancel`, { key: owner.api_key });
    assert.deepEqual(canceled.body, { id: render.body.id, status: "canceled" });
    const job = (await t.request("GET", `/v1/jobs/${render.body.id}`, { key: owner.api_key })).body;
    assert.equal(job.status, "canceled");
    assert.deepEqual(job.usage, { reserved_seconds: 0, billed_seconds: 0 });

    assert.deepEqual(await ledger(), ledgerBefore, "no ledger entry for the render job, the source's charge stands");
    assert.deepEqual(await sourceRow(), sourceBefore, "the source keeps its state, its files and its charge");
    assert.deepEqual((await t.request("GET", "/v1/usage", { key: owner.api_key })).body, usageBefore);
    // Canceling again changes nothing, and the source can still be rendered again.
    assert.deepEqual((await t.request("POST", `/v1/jobs/${render.body.id}/cancel`, { key: owner.api_key })).body, { id: render.body.id, status: "canceled" });
    assert.deepEqual(await ledger(), ledgerBefore);
    assert.equal((await renders(source, {}, {}, owner.api_key)).status, 202);
  });

  test("a render job that has completed can itself be rendered again", async () => {
    const first = await sourceJob();
    const second = testId("job");
    await insertCompletedJob(t.database.db, { id: second, accountId, expiresAt: new Date(Date.now() + HOUR), row: { kind: "render", source_job_id: first } });
    assert.equal((await renders(second, {})).status, 202);
  });
});

describe("the source job", () => {
  const refused: [string, Parameters<typeof sourceJob>[0], RegExp][] = [
    ["failed", { status: "failed", error_code: "TRANSCRIPTION_FAILED", error_message: "x", billed_seconds: 0 }, /it is failed/],
    ["canceled", { status: "canceled", billed_seconds: 0, expires_at: null }, /it is canceled/],
    ["still running", { status: "rendering", billed_seconds: 0, expires_at: null }, /it is rendering/],
    ["completed, files past expires_at", { expires_at: new Date(Date.now() - 1000) }, /expired/],
    ["completed, files deleted", { files_deleted_at: new Date(), video_key: null, source_video_key: null }, /expired/],
    ["completed before source videos were kept", { source_video_key: null }, /before this service kept source videos/],
  ];
  for (const [name, row, message] of refused) {
    test(`${name} → 409 SOURCE_NOT_RENDERABLE`, async () => {
      const res = await renders(await sourceJob(row), { preset: "classic" });
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assertErrorShape(res.body, "SOURCE_NOT_RENDERABLE");
      assert.match(res.body.error.message, message);
    });
  }

  test("another account's job is 404, exactly like a job that does not exist", async () => {
    const other = await t.createKey();
    const theirs = await sourceJob({}, other.account_id);
    const res = await renders(theirs, {});
    assert.equal(res.status, 404);
    assertErrorShape(res.body, "NOT_FOUND");
    assert.deepEqual((await renders(testId("job"), {})).body.error.code, "NOT_FOUND");
    // The words are checked against the source, so a bad word for no such job is 404 too.
    assert.deepEqual((await renders(testId("job"), { words: [null] })).body.error.code, "NOT_FOUND");
    assert.equal((await renders(theirs, {}, {}, other.api_key)).status, 202, "its owner may");
  });

  test("the account needs the write scope and a positive balance", async () => {
    const reader = await t.createKey({ scopes: ["subtitles:read"] });
    assert.equal((await renders(await sourceJob(), {}, {}, reader.api_key)).body.error.code, "INSUFFICIENT_SCOPE");
    const broke = await t.createKey({ credits: 0 });
    const theirs = await sourceJob({}, broke.account_id);
    const res = await renders(theirs, {}, {}, broke.api_key);
    assert.equal(res.status, 402);
    assertErrorShape(res.body, "INSUFFICIENT_CREDITS");
  });

  test("render jobs count against the concurrency limit like any job", async () => {
    const limited = await t.createKey({ concurrency: 1 });
    const theirs = await sourceJob({}, limited.account_id);
    assert.equal((await renders(theirs, {}, {}, limited.api_key)).status, 202);
    const second = await renders(theirs, {}, {}, limited.api_key);
    assert.equal(second.status, 429);
    assertErrorShape(second.body, "CONCURRENCY_LIMIT_EXCEEDED");
  });
});

describe("Idempotency-Key", () => {
  test("the same key and body replay the same job; another body is a mismatch", async () => {
    const source = await sourceJob();
    const headers = { "Idempotency-Key": "render-once" };
    const first = await renders(source, { words: WORDS, preset: "glow" }, headers);
    const again = await renders(source, { preset: "glow", words: WORDS }, headers);
    assert.equal(first.status, 202);
    assert.equal(again.status, 202);
    assert.equal(again.body.id, first.body.id);
    assert.equal(again.body.replayed, true);
    const changed = await renders(source, { words: WORDS, preset: "box" }, headers);
    assert.equal(changed.status, 400);
    assertErrorShape(changed.body, "IDEMPOTENCY_KEY_MISMATCH");
    const jobs = await t.database.db.selectFrom("jobs").select("id").where("source_job_id", "=", source).execute();
    assert.equal(jobs.length, 1, "one job for the replayed request");
  });

  test("a key used to submit, or to render another job, is a mismatch here, and the other way round", async () => {
    const [a, b] = [await sourceJob(), await sourceJob()];
    const submitted = await t.request("POST", "/v1/subtitles", { key, body: { video_url: "https://videos.example.com/a.mp4" }, headers: { "Idempotency-Key": "shared-key" } });
    assert.equal(submitted.status, 202);
    assertErrorShape((await renders(a, {}, { "Idempotency-Key": "shared-key" })).body, "IDEMPOTENCY_KEY_MISMATCH");
    assert.equal((await renders(a, {}, { "Idempotency-Key": "render-key" })).status, 202);
    assertErrorShape((await renders(b, {}, { "Idempotency-Key": "render-key" })).body, "IDEMPOTENCY_KEY_MISMATCH");
    const submitAgain = await t.request("POST", "/v1/subtitles", { key, body: {}, headers: { "Idempotency-Key": "render-key" } });
    assert.equal(submitAgain.status, 400, "a submission body is validated first");
    const submitOther = await t.request("POST", "/v1/subtitles", { key, body: { video_url: "https://videos.example.com/a.mp4" }, headers: { "Idempotency-Key": "render-key" } });
    assertErrorShape(submitOther.body, "IDEMPOTENCY_KEY_MISMATCH");
  });

  test("a replay still answers after the source's files have expired; a malformed key is 400", async () => {
    const source = await sourceJob();
    const first = await renders(source, {}, { "Idempotency-Key": "before-expiry" });
    await t.database.db.updateTable("jobs").set({ expires_at: new Date(Date.now() - 1000) }).where("id", "=", source).execute();
    const replay = await renders(source, {}, { "Idempotency-Key": "before-expiry" });
    assert.equal(replay.body.id, first.body.id);
    assert.equal(replay.body.replayed, true);
    assert.equal((await renders(source, {}, { "Idempotency-Key": "before-expiry-2" })).status, 409);
    assert.equal((await renders(source, {}, { "Idempotency-Key": "a key with spaces" })).status, 400);
  });
});
