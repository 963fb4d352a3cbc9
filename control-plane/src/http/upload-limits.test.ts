import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, test } from "node:test";
import pino from "pino";
import { parseStorageUrl } from "@caption/shared/storage/storage-location";
import { parseEnv } from "@caption/shared/config/env";
import { manualClock } from "@caption/shared/testing/manual-clock";
import { sweepUploads } from "../services/upload-sweep.ts";
import { createUploadStore } from "../storage/upload-store.ts";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";

let t: TestApi;
const clock = manualClock(new Date());

before(async () => {
  t = await startTestApi({}, { now: clock.date });
});
after(() => t.close());

const create = (key: string, size = 1000) => t.request("POST", "/v1/uploads", { key, body: { size_bytes: size } });
const patch = (url: string, offset: number, bytes: Buffer) =>
  fetch(url, { method: "PATCH", headers: { "Tus-Resumable": "1.0.0", "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream" }, body: bytes });
const head = async (url: string) => (await fetch(url, { method: "HEAD", headers: { "Tus-Resumable": "1.0.0" } })).headers.get("upload-offset");
const storedPath = (id: string) => path.join(t.dataDir, "files", "uploads", id);

// First: the sweep sees only this test's uploads.
test("the sweep deletes unfinished uploads at expiry and finished ones 24 h after completion, not before, and not while a job needs them", async () => {
  const { api_key: key } = await t.createKey({ concurrency: 100 });
  const start = clock.date();
  const unfinished = (await create(key)).body;
  const finished = (await create(key)).body;
  const submitted = (await create(key)).body;
  for (const upload of [finished, submitted]) assert.equal((await fetch(upload.upload_url, { method: "PUT", body: randomBytes(1000) })).status, 204);
  const job = await t.request("POST", "/v1/subtitles", { key, body: { upload_id: submitted.id } });
  assert.equal(job.status, 202);
  const store = createUploadStore(parseStorageUrl(parseEnv({ DATA_DIR: t.dataDir })), {});
  const deps = { db: t.database.db, store, logger: pino({ level: "silent" }) };
  const exists = (id: string) => stat(storedPath(id)).then(() => true, () => false);

  assert.equal(await sweepUploads(deps, new Date(start.getTime() + 3599_000)), 0);
  assert.equal(await sweepUploads(deps, new Date(start.getTime() + 3600_000)), 1);
  assert.deepEqual([await exists(unfinished.id), await exists(finished.id), await exists(submitted.id)], [false, true, true]);
  assert.equal(await sweepUploads(deps, new Date(start.getTime() + 24 * 3600_000 + 1000)), 1, "the job still queued keeps its upload");
  assert.deepEqual([await exists(finished.id), await exists(submitted.id)], [false, true]);
  clock.set(start.getTime() + 24 * 3600_000 + 1000);
  try {
    const late = await t.request("POST", "/v1/subtitles", { key, body: { upload_id: finished.id } });
    assert.equal(late.status, 410);
    assertErrorShape(late.body, "UPLOAD_EXPIRED");
    assert.equal((await t.request("POST", "/v1/subtitles", { key, body: { upload_id: submitted.id } })).status, 410, "past 24 h even before the sweep");
  } finally {
    clock.set(start);
  }
  await t.database.db.updateTable("jobs").set({ status: "canceled" }).where("id", "=", job.body.id).execute();
  assert.equal(await sweepUploads(deps, new Date(start.getTime() + 24 * 3600_000 + 1000)), 1);
  assert.equal(await exists(submitted.id), false);
});

test("an 11th unfinished upload is 429 UPLOAD_LIMIT_EXCEEDED with Retry-After until the oldest expires; finishing one frees a place", async () => {
  const { api_key: key } = await t.createKey();
  const uploads = [];
  for (let i = 0; i < 10; i += 1) uploads.push((await create(key)).body);
  const refused = await create(key);
  assert.equal(refused.status, 429);
  assertErrorShape(refused.body, "UPLOAD_LIMIT_EXCEEDED");
  assert.equal(refused.headers.get("retry-after"), "3600");
  assert.equal((await fetch(uploads[0].upload_url, { method: "PUT", body: randomBytes(1000) })).status, 204);
  assert.equal((await create(key)).status, 201);
});

test("racing creations count each other: exactly 10 of 15 succeed", async () => {
  const { api_key: key } = await t.createKey();
  const answers = await Promise.all(Array.from({ length: 15 }, () => create(key)));
  assert.deepEqual(answers.map((a) => a.status).sort(), [...Array(10).fill(201), ...Array(5).fill(429)]);
});

test("two clients sending the same offset at once: one wins, the other gets 409, and the file is one client's bytes", async () => {
  const { api_key: key } = await t.createKey();
  const size = 8 * 1024 * 1024;
  const { body: upload } = await create(key, size);
  const a = randomBytes(size);
  const b = randomBytes(size);
  const answers = await Promise.all([patch(upload.upload_url, 0, a), patch(upload.upload_url, 0, b)]);
  const statuses = answers.map((answer) => answer.status).sort();
  assert.deepEqual(statuses, [204, 409]);
  assertErrorShape(await answers.find((answer) => answer.status === 409)!.json(), "UPLOAD_OFFSET_CONFLICT");
  const stored = await readFile(storedPath(upload.id));
  assert.ok(stored.equals(a) || stored.equals(b));
});

test("disk full mid-upload: 503 with Retry-After, and the offset is what was stored", async () => {
  const { api_key: key } = await t.createKey();
  const { body: upload } = await create(key, 4000);
  assert.equal((await patch(upload.upload_url, 0, randomBytes(1000))).status, 204);
  // /dev/full refuses every write with ENOSPC, as a full disk does.
  const file = storedPath(upload.id);
  const kept = await readFile(file);
  await rm(file);
  await symlink("/dev/full", file);
  try {
    const refused = await patch(upload.upload_url, 0, randomBytes(1000));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "5");
    assertErrorShape(await refused.json(), "SERVICE_UNAVAILABLE");
  } finally {
    await rm(file);
    await writeFile(file, kept);
  }
  assert.equal(await head(upload.upload_url), "1000");
  assert.equal((await patch(upload.upload_url, 1000, randomBytes(3000))).status, 204);
});
