import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import pino from "pino";
import { insertCompletedJob } from "@caption/shared/testing/job-rows";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { createLocalResultStore } from "../storage/local-result-store.ts";
import { expireResultFiles } from "./expire-files.ts";

let database: TestDatabase;
let root: string;
before(async () => {
  database = await createTestDatabase();
  root = await mkdtemp(path.join(tmpdir(), "expire-"));
  await database.db.insertInto("accounts").values({ id: "acct_1", name: "a" }).execute();
});
after(async () => {
  await database.dispose();
  await rm(root, { recursive: true, force: true });
});

async function completedJob(id: string, expiresAt: Date) {
  const store = createLocalResultStore(root);
  const source = path.join(root, "source");
  await writeFile(source, "x");
  for (const name of ["captioned.mp4", "captions.srt", "transcript.json"]) await store.put(id, name, source, "application/octet-stream");
  await insertCompletedJob(database.db, { id, accountId: "acct_1", expiresAt });
}

test("expired files are deleted and their keys forgotten; the job keeps its state; fresh files stay", async () => {
  await completedJob("job_old", new Date(Date.now() - 1000));
  await completedJob("job_new", new Date(Date.now() + 3600_000));
  const deleted = await expireResultFiles(database.db, createLocalResultStore(root), pino({ level: "silent" }));
  assert.equal(deleted, 1);
  assert.equal(existsSync(path.join(root, "job_old")), false);
  assert.equal(existsSync(path.join(root, "job_new", "captioned.mp4")), true);
  const old = await database.db.selectFrom("jobs").selectAll().where("id", "=", "job_old").executeTakeFirstOrThrow();
  assert.equal(old.status, "completed");
  assert.equal(old.billed_seconds, 3);
  assert.equal(old.video_key, null);
  assert.equal(old.srt_key, null);
  assert.equal(old.transcript_key, null);
  assert.ok(old.files_deleted_at instanceof Date);
  assert.equal(await expireResultFiles(database.db, createLocalResultStore(root), pino({ level: "silent" })), 0, "a second run finds nothing");
});
