import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import pino from "pino";
import { parseEnv } from "@caption/shared/config/env";
import { parseStorageUrl } from "@caption/shared/storage/storage-location";
import { manualClock } from "@caption/shared/testing/manual-clock";
import { sweepUploads } from "../services/upload-sweep.ts";
import { createUploadStore } from "../storage/upload-store.ts";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";

// Uploads are stored bytes the account pays for: creating one needs credit, finished ones count in
// stored_bytes, and what an account keeps stays within UPLOAD_QUOTA_BYTES and UPLOAD_QUOTA_COUNT.

let t: TestApi;
const clock = manualClock(new Date());
const start = clock.date();

before(async () => {
  t = await startTestApi({ UPLOAD_QUOTA_BYTES: "5000", UPLOAD_QUOTA_COUNT: "3" }, { now: clock.date });
});
after(() => t.close());

const create = (key: string, size: number) => t.request("POST", "/v1/uploads", { key, body: { size_bytes: size } });
async function finished(key: string, size: number): Promise<{ id: string }> {
  const created = await create(key, size);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal((await fetch(created.body.upload_url, { method: "PUT", body: randomBytes(size) })).status, 204);
  return created.body;
}
const uploadRows = (accountId: string) => t.database.db.selectFrom("uploads").select("id").where("account_id", "=", accountId).execute();

test("a key without credit cannot create an upload: 402 INSUFFICIENT_CREDITS, nothing created", async () => {
  const { api_key: key, account_id: accountId } = await t.createKey({ credits: 0 });
  const refused = await create(key, 1000);
  assert.equal(refused.status, 402);
  assertErrorShape(refused.body, "INSUFFICIENT_CREDITS");
  assert.deepEqual(await uploadRows(accountId), []);
});

test("the quota's count: finished and unfinished uploads count, 429 with the figures and Retry-After until one stops counting", async () => {
  const { api_key: key } = await t.createKey();
  for (let i = 0; i < 3; i += 1) await finished(key, 100);
  const refused = await create(key, 100);
  assert.equal(refused.status, 429);
  assertErrorShape(refused.body, "UPLOAD_LIMIT_EXCEEDED");
  assert.match(refused.body.error.message, /keeps 3 uploads, the most it may keep \(3\)/);
  assert.equal(refused.headers.get("retry-after"), String(24 * 3600), "the first finished one stops counting 24 h after completion");
  clock.advance(3600_000);
  try {
    assert.equal((await create(key, 100)).headers.get("retry-after"), String(23 * 3600));
  } finally {
    clock.set(start);
  }

  const other = await t.createKey();
  await finished(other.api_key, 100);
  for (let i = 0; i < 2; i += 1) assert.equal((await create(other.api_key, 100)).status, 201);
  const unfinishedCount = await create(other.api_key, 100);
  assert.equal(unfinishedCount.status, 429);
  assert.equal(unfinishedCount.headers.get("retry-after"), "3600", "an unfinished one stops counting when its URL expires");
});

test("the quota's bytes: unfinished uploads by declared size, 429 with the figures; exactly the quota fits; more than the whole quota is 413", async () => {
  const { api_key: key, account_id: accountId } = await t.createKey();
  const tooLarge = await create(key, 5001);
  assert.equal(tooLarge.status, 413);
  assertErrorShape(tooLarge.body, "VIDEO_TOO_LARGE");
  assert.match(tooLarge.body.error.message, /at most 5000 bytes in all/);

  await finished(key, 3000);
  assert.equal((await create(key, 1500)).status, 201, "an unfinished upload of 1500 bytes");
  const over = await create(key, 501);
  assert.equal(over.status, 429);
  assertErrorShape(over.body, "UPLOAD_LIMIT_EXCEEDED");
  assert.match(over.body.error.message, /size_bytes 501 and the 4500 bytes of the account's 2 kept uploads come to 5001 bytes, over its quota of 5000/);
  assert.equal(over.headers.get("retry-after"), "3600", "the unfinished 1500 bytes leave first, and free enough");
  assert.equal((await create(key, 500)).status, 201, "exactly the quota");
  assert.equal((await uploadRows(accountId)).length, 3);
});

// Last: the sweep sees every account's uploads.
test("finished uploads count in stored_bytes until they are deleted; unfinished ones do not", async () => {
  const { api_key: key } = await t.createKey();
  assert.equal((await t.request("GET", "/v1/usage", { key })).body.stored_bytes, 0);
  await finished(key, 1234);
  await finished(key, 766);
  assert.equal((await create(key, 2000)).status, 201);
  assert.equal((await t.request("GET", "/v1/usage", { key })).body.stored_bytes, 2000);

  const store = createUploadStore(parseStorageUrl(parseEnv({ DATA_DIR: t.dataDir })), {});
  await sweepUploads({ db: t.database.db, store, logger: pino({ level: "silent" }) }, new Date(start.getTime() + 24 * 3600_000 + 1000));
  assert.equal((await t.request("GET", "/v1/usage", { key })).body.stored_bytes, 0);
});
