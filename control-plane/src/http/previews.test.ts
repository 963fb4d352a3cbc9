import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import { PGBOSS_SCHEMA, PREVIEW_RESULTS_CHANNEL, QUEUES, type PreviewPayload } from "@caption/shared/jobs/catalog";
import { insertCompletedJob, insertQueuedJob } from "@caption/shared/testing/job-rows";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";

// POST /v1/previews as the API serves it, without a real worker: what it refuses (each refusal naming the
// field), its own rate limit, its answer when no worker runs or none answers in time, and, with a stand-in
// worker that takes the queued preview and writes an answer as workers do, the bytes it then returns.

const MEDIA = { width: 360, height: 640, frameRate: 30 };
const UPLOAD = { own: "upl_01JA0000000000000000000001", unfinished: "upl_01JA0000000000000000000002", deleted: "upl_01JA0000000000000000000003", otherAccount: "upl_01JA0000000000000000000004" };
let t: TestApi;
let key: string;
let account: string;

const still = (extra: Record<string, unknown> = {}) => ({ preset: "karaoke", width: 1080, height: 1920, format: "png", ...extra });
const preview = (body: unknown, apiKey = key) => t.request("POST", "/v1/previews", { key: apiKey, body });
const markWorkerLive = () => sql`INSERT INTO workers (id, engine, model, languages, detects_language) VALUES ('w-stand-in', 'x', 'x', '{en}', false) ON CONFLICT (id) DO UPDATE SET last_seen_at = now()`.execute(t.database.db);
const markNoWorker = () => sql`DELETE FROM workers`.execute(t.database.db);
const queuedPreviews = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.id(PGBOSS_SCHEMA, "job")} WHERE name = ${QUEUES.preview}`.execute(t.database.db)).rows[0]!.n);

before(async () => {
  t = await startTestApi({ PREVIEW_STILL_DEADLINE_SECONDS: "0.3", PREVIEW_CLIP_DEADLINE_SECONDS: "0.3" });
  ({ api_key: key, account_id: account } = await t.createKey({ credits: 100 }));
  const expiresAt = new Date(Date.now() + 3600_000);
  const media = JSON.stringify({ ...MEDIA, durationSeconds: 3 });
  await insertCompletedJob(t.database.db, { id: "job_background", accountId: account, expiresAt, row: { media } });
  await insertCompletedJob(t.database.db, { id: "job_expired", accountId: account, expiresAt: new Date(Date.now() - 1000), row: { media } });
  await insertQueuedJob(t.database.db, { id: "job_queued", accountId: account });
  const other = await t.createKey();
  await insertCompletedJob(t.database.db, { id: "job_other_account", accountId: other.account_id, expiresAt, row: { media } });
  const upload = async (id: string, accountId: string, row: { completed_at?: Date | null; deleted_at?: Date | null } = {}) => {
    const { id: apiKeyId } = await t.database.db.selectFrom("api_keys").select("id").where("account_id", "=", accountId).executeTakeFirstOrThrow();
    await t.database.db.insertInto("uploads").values({ id, account_id: accountId, api_key_id: apiKeyId, size_bytes: 10, filename: null, created_at: new Date(), expires_at: expiresAt, completed_at: new Date(), ...row }).execute();
  };
  await upload(UPLOAD.own, account);
  await upload(UPLOAD.unfinished, account, { completed_at: null });
  await upload(UPLOAD.deleted, account, { deleted_at: new Date() });
  await upload(UPLOAD.otherAccount, other.account_id);
});
after(() => t.close());

describe("refusals name the field", () => {
  const background = (extra: Record<string, unknown> = {}) => still({ width: MEDIA.width, height: MEDIA.height, background: { job_id: "job_background", at: 1 }, ...extra });
  const cases: [string, unknown, number, RegExp][] = [
    ["too wide", still({ width: 1921 }), 400, /^width must be between 1 and 1920/],
    ["zero height", still({ height: 0 }), 400, /^height must be between 1 and 1920/],
    ["over 1920 × 1080 both ways", still({ width: 1920, height: 1920 }), 400, /^width must be at most 1080 when height is 1920/],
    ["the short side over 1080", still({ width: 1500, height: 1081 }), 400, /^height must be at most 1080 when width is 1500/],
    ["odd for an mp4", still({ format: "mp4", width: 1079 }), 400, /^width must be even for an mp4 clip/],
    ["at after the words", still({ at: 60 }), 400, /^at must lie within the words/],
    ["at before the words", still({ words: [{ text: "late", start: 2, end: 2.5 }], at: 1 }), 400, /^at must lie within the words, 2 s to 2.5 s/],
    ["a clip starting after the words", still({ format: "mp4", at: 60 }), 400, /^at must be before the last word ends/],
    ["text over 500 characters", still({ text: "a ".repeat(250) + "b" }), 400, /^text must be at most 500 characters/],
    ["text of spaces", still({ text: "   " }), 400, /^text must hold at least one word/],
    ["text with a control character", still({ text: "a\u0007b" }), 400, /^text must match/],
    ["unknown format", still({ format: "gif" }), 400, /^format must be one of "png", "webp", "mp4"/],
    ["text and words", still({ text: "a", words: [{ text: "a", start: 0, end: 1 }] }), 400, /^text and words exclude each other/],
    ["words out of order", still({ words: [{ text: "b", start: 1, end: 1.5 }, { text: "a", start: 0.5, end: 1 }] }), 400, /^words\[1\]\.start must not be before words\[0\]\.start/],
    ["a word ending before it starts", still({ words: [{ text: "a", start: 1, end: 0.5 }] }), 400, /^words\[0\]\.end must not be before/],
    ["duration of a still", still({ duration: 2 }), 400, /^duration is for mp4 clips only/],
    ["a clip over 5 s", still({ format: "mp4", duration: 6 }), 400, /^duration must be between 0.1 and 5/],
    ["no preset", { width: 100, height: 100, format: "png" }, 400, /^preset is required/],
    ["an unknown field", still({ background_color: "#000000" }), 400, /^unknown field background_color/],
    ["another account's background", background({ background: { job_id: "job_other_account", at: 1 } }), 404, /^background\.job_id: job not found/],
    ["a background that does not exist", background({ background: { job_id: "job_none", at: 1 } }), 404, /^background\.job_id: job not found/],
    ["a background still queued", background({ background: { job_id: "job_queued", at: 1 } }), 409, /^background\.job_id: job job_queued cannot be a preview's background: it is queued/],
    ["an expired background", background({ background: { job_id: "job_expired", at: 1 } }), 409, /^background\.job_id: job job_expired cannot be a preview's background: its files have expired/],
    ["background.at past the video", background({ background: { job_id: "job_background", at: 3 } }), 400, /^background\.at must be before the end of job job_background's video at 3 s/],
    ["a size other than the background's", background({ width: 1080, height: 1920 }), 400, /^width must be the background job's 360/],
    ["words past the background's end", background({ words: [{ text: "a", start: 2, end: 4 }] }), 400, /^words\[0\]\.end must be within the video's 3 s/],
    ["a clip running past the background's end", background({ format: "mp4", background: { job_id: "job_background", at: 2.5 }, duration: 1 }), 400, /^duration runs past the end of job job_background's video/],
    ["a background of a job and an upload", still({ background: { job_id: "job_background", upload_id: UPLOAD.own, at: 1 } }), 400, /^background: give either job_id or upload_id, not both/],
    ["a background of neither", still({ background: { at: 1 } }), 400, /^background\.job_id or background\.upload_id is required/],
    ["a malformed upload id", still({ background: { upload_id: "upl_x", at: 1 } }), 400, /^background\.upload_id must match/],
    ["another account's upload", still({ background: { upload_id: UPLOAD.otherAccount, at: 1 } }), 404, /^background\.upload_id: upload not found/],
    ["an upload that does not exist", still({ background: { upload_id: "upl_01JA0000000000000000000009", at: 1 } }), 404, /^background\.upload_id: upload not found/],
    ["an unfinished upload", still({ background: { upload_id: UPLOAD.unfinished, at: 1 } }), 409, /^upload upl_\w+ has not received all of its 10 bytes/],
    ["a deleted upload", still({ background: { upload_id: UPLOAD.deleted, at: 1 } }), 410, /^upload upl_\w+ has expired/],
  ];
  const codes: Record<number, string> = { 400: "INVALID_REQUEST", 404: "NOT_FOUND", 409: "SOURCE_NOT_RENDERABLE", 410: "UPLOAD_EXPIRED" };
  for (const [name, body, status, message] of cases) {
    test(name, async () => {
      const response = await preview(body);
      assert.equal(response.status, status, JSON.stringify(response.body));
      assertErrorShape(response.body, /unfinished/.test(name) ? "UPLOAD_INCOMPLETE" : codes[status]!);
      assert.match(response.body.error.message, message);
    });
  }
});

test("a read-only key may not ask for previews", async () => {
  const reader = await t.createKey({ scopes: ["subtitles:read"] });
  const response = await preview(still(), reader.api_key);
  assert.equal(response.status, 401);
  assertErrorShape(response.body, "INSUFFICIENT_SCOPE");
});

test("with no worker running the answer is 503 at once, nothing queued", async () => {
  await markNoWorker();
  const before = await queuedPreviews();
  const response = await preview(still({ width: 1079 }));
  assert.equal(response.status, 503, JSON.stringify(response.body));
  assertErrorShape(response.body, "SERVICE_UNAVAILABLE");
  assert.equal(response.headers.get("retry-after"), "10");
  assert.match(response.body.error.message, /no worker is running/);
  assert.equal(await queuedPreviews(), before);
});

test("a preview no worker draws by its deadline is 503 with Retry-After, and its queue entry says when to give up", async () => {
  await markWorkerLive();
  const before = await queuedPreviews();
  const asked = Date.now();
  const response = await preview(still());
  assert.equal(response.status, 503, JSON.stringify(response.body));
  assertErrorShape(response.body, "SERVICE_UNAVAILABLE");
  assert.equal(response.headers.get("retry-after"), "1");
  assert.match(response.body.error.message, /not drawn within 0.3 s/);
  assert.equal(await queuedPreviews(), before + 1);
  const [queued] = (await sql<{ data: PreviewPayload }>`SELECT data FROM ${sql.id(PGBOSS_SCHEMA, "job")} WHERE name = ${QUEUES.preview} ORDER BY created_on DESC LIMIT 1`.execute(t.database.db)).rows;
  assert.ok(queued && queued.data.deadline_ms >= asked + 300 && queued.data.deadline_ms <= Date.now(), JSON.stringify(queued?.data));
});

describe("with a stand-in worker", () => {
  let worker: pg.Client;
  let stop = false;
  let answered: Promise<void> = Promise.resolve();
  /** Takes queued previews and answers each as `answer` says, as a worker writes and NOTIFYs. */
  let answer: (payload: PreviewPayload) => { content_type: string; body: Buffer } | { error_code: string; error_message: string } = () => ({ content_type: "image/png", body: Buffer.from("png") });

  before(async () => {
    await markWorkerLive();
    worker = new pg.Client({ connectionString: t.database.url });
    await worker.connect();
    const take = async (): Promise<void> => {
      while (!stop) {
        const { rows } = await worker.query<{ data: PreviewPayload }>(
          `UPDATE ${PGBOSS_SCHEMA}.job SET state = 'completed' WHERE id IN (SELECT id FROM ${PGBOSS_SCHEMA}.job WHERE name = $1 AND state = 'created' AND (data->>'deadline_ms')::bigint > $2 LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING data`,
          [QUEUES.preview, Date.now()],
        );
        for (const { data } of rows) {
          const result = answer(data);
          const row = "body" in result ? [data.preview_id, result.content_type, result.body, null, null] : [data.preview_id, null, null, result.error_code, result.error_message];
          await worker.query("INSERT INTO preview_results (id, content_type, body, error_code, error_message) VALUES ($1, $2, $3, $4, $5)", row);
          await worker.query("SELECT pg_notify($1, $2)", [PREVIEW_RESULTS_CHANNEL, data.preview_id]);
        }
        if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    answered = take();
  });
  after(async () => {
    stop = true;
    await answered;
    await worker.end();
  });

  test("the drawn bytes come back with their Content-Type, and the answer's row is gone", async () => {
    answer = (payload) => ({ content_type: "image/webp", body: Buffer.from(`webp of ${payload.request.preset}`) });
    const response = await fetch(`${t.url}/v1/previews`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(still({ format: "webp", preset: "glow" })) });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "image/webp");
    assert.equal(response.headers.get("cache-control"), "no-store");
    assert.equal(await response.text(), "webp of glow");
    assert.deepEqual(await t.database.db.selectFrom("preview_results").selectAll().execute(), []);
  });

  test("a worker's refusal is the API's error", async () => {
    answer = () => ({ error_code: "SOURCE_NOT_RENDERABLE", error_message: "background.job_id: the files of job job_background are gone" });
    const response = await preview(still({ width: MEDIA.width, height: MEDIA.height, background: { job_id: "job_background", at: 1 } }));
    assert.equal(response.status, 409);
    assertErrorShape(response.body, "SOURCE_NOT_RENDERABLE");
    assert.match(response.body.error.message, /are gone/);
  });

  test("an upload's background goes to the worker, which checks its video", async () => {
    let asked: PreviewPayload | undefined;
    answer = (payload) => {
      asked = payload;
      return { error_code: "INVALID_REQUEST", error_message: "width must be the background upload's 640 (got 1080)" };
    };
    const response = await preview(still({ background: { upload_id: UPLOAD.own, at: 1 } }));
    assert.equal(response.status, 400);
    assertErrorShape(response.body, "INVALID_REQUEST");
    assert.match(response.body.error.message, /background upload's 640/);
    assert.deepEqual(asked?.request.background, { upload_id: UPLOAD.own, at: 1 });
  });

  test("previews never touch the credit ledger", async () => {
    answer = () => ({ content_type: "video/mp4", body: Buffer.from("mp4") });
    const ledger = () => t.database.db.selectFrom("credit_ledger").select(["kind", "seconds"]).where("account_id", "=", account).orderBy("id").execute();
    const before = await ledger();
    for (const format of ["png", "webp", "mp4"]) assert.equal((await preview(still({ format }))).status, 200);
    assert.deepEqual(await ledger(), before);
  });
});

test("previews have a rate limit of their own per key, beside the key's general one", async () => {
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  const limited = await startTestApi({ PREVIEW_RATE_LIMIT_PER_MINUTE: "2" }, { database: t.database, now: () => new Date(minute + 45_000) });
  try {
    const own = await limited.createKey();
    await markNoWorker();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await limited.request("POST", "/v1/previews", { key: own.api_key, body: still() })).status);
    assert.deepEqual(statuses, [503, 503, 429]);
    const refused = await limited.request("POST", "/v1/previews", { key: own.api_key, body: still() });
    assertErrorShape(refused.body, "RATE_LIMITED");
    assert.equal(refused.headers.get("retry-after"), "15");
    assert.match(refused.body.error.message, /preview rate limit of 2 per minute/);
    assert.equal((await limited.request("GET", "/v1/usage", { key: own.api_key })).status, 200, "other requests go on");
  } finally {
    await limited.close();
  }
});
