import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pg from "pg";
import { parseEnv } from "@caption/shared/config/env";
import { parseStorageUrl } from "@caption/shared/storage/storage-location";
import { uploadLockKey } from "../db/upload-locker.ts";
import { createUploadStore } from "../storage/upload-store.ts";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startRateWindowApi, type RateWindowApi } from "../testing/rate-window-api.ts";
import type { TestApi } from "../testing/test-api.ts";

// An upload URL needs no key, yet one account's requests on it cannot starve another's: at most two of one
// upload's requests in progress, and each counted against the rate of the key that created the upload.

// Rate windows are minutes of the API's clock, set here; the waits of refusals (remembered rate refusals, too
// many requests at once) are counted instead of slept.
let api: RateWindowApi;
let t: TestApi;

before(async () => {
  api = await startRateWindowApi();
  t = api.t;
});
after(() => t.close());

const create = async (key: string) => {
  const created = await t.request("POST", "/v1/uploads", { key, body: { size_bytes: 1000 } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body as { id: string; upload_url: string };
};
const head = (url: string) => fetch(url, { method: "HEAD", headers: { "Tus-Resumable": "1.0.0" } });

test("a third request at once on one upload is 429 RATE_LIMITED with Retry-After; the two in progress go on", async () => {
  const { api_key: key } = await t.createKey();
  const upload = await create(key);
  // Another API process holds the upload's lock: the two requests let in wait for it, and stay in progress.
  const elsewhere = new pg.Client({ connectionString: t.database.url });
  await elsewhere.connect();
  try {
    const lockKey = uploadLockKey(createUploadStore(parseStorageUrl(parseEnv({ DATA_DIR: t.dataDir })), {}).storageId(upload.id));
    await elsewhere.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [lockKey]);
    const waitsBefore = api.waits.length;
    const answers = [head(upload.upload_url), head(upload.upload_url), head(upload.upload_url)];
    const first = await Promise.race(answers);
    assert.equal(first.status, 429, "answered while the lock is still held elsewhere");
    assert.equal(first.headers.get("retry-after"), "5");
    assert.equal(api.waits.length, waitsBefore + 1, "answered after a refusal's wait");
    // The other two are still in progress: any further request is refused, a PATCH with the API's error body.
    const patch = await fetch(upload.upload_url, {
      method: "PATCH",
      headers: { "Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      body: Buffer.alloc(1000),
    });
    assert.equal(patch.status, 429);
    assertErrorShape(await patch.json(), "RATE_LIMITED");
    await elsewhere.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [lockKey]);
    const statuses = (await Promise.all(answers)).map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, 200, 429]);
  } finally {
    await elsewhere.end();
  }
  assert.equal((await head(upload.upload_url)).status, 200, "their places are free again");
});

test("an upload URL's requests count against the rate of the key that created the upload; a wrong signature counts nothing", async () => {
  const { api_key: key } = await t.createKey({ ratePerMinute: 4 });
  api.at(20);
  const upload = await create(key);
  const forged = upload.upload_url.replace(/signature=[^&]+/, "signature=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
  for (let i = 0; i < 5; i += 1) assert.equal((await head(forged)).status, 404);
  const statuses: number[] = [];
  for (let i = 0; i < 4; i += 1) statuses.push((await head(upload.upload_url)).status);
  assert.deepEqual(statuses, [200, 200, 200, 429], "the creation and three HEADs are the key's four requests this minute");
  const refused = await head(upload.upload_url);
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("retry-after"), "40", "until the minute ends");
  const keyed = await t.request("GET", "/v1/usage", { key });
  assert.equal(keyed.status, 429, "the key's own requests share the window");
  assertErrorShape(keyed.body, "RATE_LIMITED");
  api.at(60);
  assert.equal((await head(upload.upload_url)).status, 200, "the next minute is a new window");
});
