import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import pino from "pino";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { createS3Client } from "@caption/shared/storage/s3-client";
import { insertCompletedJob } from "@caption/shared/testing/job-rows";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { startLoopbackS3, type LoopbackS3 } from "@caption/shared/testing/loopback-s3";
import { expireResultFiles } from "../runtime/expire-files.ts";
import { createResultStore } from "./create-result-store.ts";

let database: TestDatabase;
let s3: LoopbackS3;
let dir: string;
before(async () => {
  database = await createTestDatabase();
  s3 = await startLoopbackS3();
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: s3.env.AWS_SECRET_ACCESS_KEY });
  dir = await mkdtemp(path.join(tmpdir(), "s3-expire-"));
  await database.db.insertInto("accounts").values({ id: "acct_1", name: "a" }).execute();
});
after(async () => {
  await database.dispose();
  await s3.close();
  await rm(dir, { recursive: true, force: true });
});

test("the retention schedule deletes an S3-backed job's objects and keeps fresh ones", async () => {
  const env = { STORAGE_URL: `s3://${s3.bucket}/r`, DATA_DIR: dir, ...s3.env };
  const store = createResultStore(env);
  const source = path.join(dir, "source");
  await writeFile(source, "x");
  for (const [id, expiresAt] of [["job_old", new Date(Date.now() - 1000)], ["job_new", new Date(Date.now() + 3600_000)]] as const) {
    for (const name of ["captioned.mp4", "captions.srt", "transcript.json"]) await store.put(id, name, source, "application/octet-stream");
    await insertCompletedJob(database.db, { id, accountId: "acct_1", expiresAt });
  }
  assert.equal(await expireResultFiles(database.db, store, pino({ level: "silent" })), 1);
  const client = createS3Client(s3.env);
  const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: "r/" }));
  client.destroy();
  assert.deepEqual((listed.Contents ?? []).map((o) => o.Key).sort(), ["r/job_new/captioned.mp4", "r/job_new/captions.srt", "r/job_new/transcript.json"]);
  const old = await database.db.selectFrom("jobs").selectAll().where("id", "=", "job_old").executeTakeFirstOrThrow();
  assert.equal(old.video_key, null);
  assert.ok(old.files_deleted_at instanceof Date);
});
