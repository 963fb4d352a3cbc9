import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { insertCompletedJob, insertQueuedJob } from "@caption/shared/testing/job-rows";
import type { JobList } from "@caption/shared/api/job";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";

// GET /v1/jobs: the account's own jobs, newest first, a page at a time by cursor. Creation times are set to the
// microsecond, some equal (ties go by id), so a cursor that kept only milliseconds would repeat or skip jobs.

let t: TestApi;
let key: string;
let account: string;
let otherKey: string;

const list = async (query = "", apiKey = key) => t.request("GET", `/v1/jobs${query}`, { key: apiKey });
const at = (micros: number) => `2031-05-06 07:08:09.${String(micros).padStart(6, "0")}+00`;
// Newest first: 9 created 0.000009 s after 1, and jobs 4 and 5 at the same microsecond.
const MICROS = [1, 2, 3, 5, 5, 6, 7, 8, 9];
const ids = MICROS.map((_, i) => `job_list_${i + 1}`);
const newestFirst = [...ids].reverse();

before(async () => {
  t = await startTestApi();
  ({ api_key: key, account_id: account } = await t.createKey());
  const other = await t.createKey();
  otherKey = other.api_key;
  for (const [i, id] of ids.entries()) {
    if (i % 2 === 0) await insertCompletedJob(t.database.db, { id, accountId: account, expiresAt: new Date(Date.now() + 3600_000), row: { preset: "karaoke", duration_seconds: 2.5 + i, billed_seconds: 3 + i } });
    else await insertQueuedJob(t.database.db, { id, accountId: account });
    await t.database.db.updateTable("jobs").set({ created_at: at(MICROS[i]!) }).where("id", "=", id).execute();
  }
  await insertQueuedJob(t.database.db, { id: "job_list_others", accountId: other.account_id });
});
after(() => t.close());

test("pages of the account's jobs follow each other by cursor, newest first, ties by id, none twice", async () => {
  const seen: string[] = [];
  let cursor: string | null = null;
  const sizes: number[] = [];
  do {
    const response = await list(`?limit=4${cursor ? `&cursor=${cursor}` : ""}`);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.equal(response.headers.get("cache-control"), "no-store");
    const page = response.body as JobList;
    sizes.push(page.jobs.length);
    seen.push(...page.jobs.map((job) => job.id));
    cursor = page.next_cursor;
  } while (cursor !== null);
  assert.deepEqual(sizes, [4, 4, 1]);
  assert.deepEqual(seen, newestFirst);
});

test("each job says its status, preset, creation time, length and billed seconds", async () => {
  const { body } = await list("?limit=1");
  assert.deepEqual((body as JobList).jobs[0], {
    id: "job_list_9", status: "completed", preset: "karaoke", created_at: "2031-05-06T07:08:09.000Z", source_job_id: null, duration_seconds: 10.5, billed_seconds: 11,
  });
  const queued = (await list("?limit=2")).body as JobList;
  assert.deepEqual(queued.jobs[1], { id: "job_list_8", status: "queued", preset: "classic", created_at: "2031-05-06T07:08:09.000Z", source_job_id: null, duration_seconds: null, billed_seconds: 0 });
});

test("the default page is 20; another account sees only its own", async () => {
  const mine = (await list()).body as JobList;
  assert.equal(mine.jobs.length, ids.length);
  assert.equal(mine.next_cursor, null);
  const theirs = (await list("", otherKey)).body as JobList;
  assert.deepEqual(theirs.jobs.map((job) => job.id), ["job_list_others"]);
});

test("a bad limit or cursor is 400 INVALID_REQUEST; no key is 401", async () => {
  const forged = Buffer.from(`1.job_list_1' OR 1=1`).toString("base64url");
  for (const query of ["?limit=0", "?limit=101", "?limit=abc", "?limit=1.5", "?cursor=%20", "?cursor=bm90LWEtY3Vyc29y", `?cursor=${forged}`]) {
    const response = await list(query);
    assert.equal(response.status, 400, query);
    assertErrorShape(response.body, "INVALID_REQUEST");
  }
  assert.equal((await t.request("GET", "/v1/jobs")).status, 401);
});
