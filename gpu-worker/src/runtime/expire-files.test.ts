import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import pino from "pino";
import { insertCompletedJob } from "@caption/shared/testing/job-rows";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { claimExpiredJobs, sourcesOfActiveRenders } from "@caption/shared/db/job-lifecycle-repository";
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
  for (const name of ["captioned.mp4", "captions.srt", "captions.vtt", "captions.ass", "transcript.json", "source-video"]) await store.put(id, name, source, "application/octet-stream");
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
  assert.equal(old.vtt_key, null);
  assert.equal(old.ass_key, null);
  assert.equal(old.source_video_key, null);
  assert.ok(old.files_deleted_at instanceof Date);
  assert.equal(await expireResultFiles(database.db, createLocalResultStore(root), pino({ level: "silent" })), 0, "a second run finds nothing");
});

/** An unfinished render job of `sourceId`. */
async function renderJobOf(id: string, sourceId: string) {
  await database.db
    .insertInto("jobs")
    .values({ id, account_id: "acct_1", kind: "render", source_job_id: sourceId, status: "rendering", video_url: "https://a/b.mp4", preset: "classic", style: "{}", max_duration_seconds: 600 })
    .execute();
}

test("an expired job's files (source video included) wait for the unfinished render jobs that read them", async () => {
  const logger = pino({ level: "silent" });
  await completedJob("job_source", new Date(Date.now() - 1000));
  await renderJobOf("job_render", "job_source");
  assert.equal(await expireResultFiles(database.db, createLocalResultStore(root), logger), 0);
  assert.equal(existsSync(path.join(root, "job_source", "source-video")), true, "kept while the render job runs");
  await database.db.updateTable("jobs").set({ status: "failed", error_code: "RENDER_FAILED", error_message: "x" }).where("id", "=", "job_render").execute();
  assert.equal(await expireResultFiles(database.db, createLocalResultStore(root), logger), 1);
  assert.equal(existsSync(path.join(root, "job_source")), false, "deleted once it has finished");
});

test("a render job that commits while an expiry holds the claim is seen before anything is deleted", async () => {
  await completedJob("job_racing", new Date(Date.now() - 1000));
  await database.db.transaction().execute(async (trx) => {
    const claimed = await claimExpiredJobs(trx, 10);
    assert.deepEqual(claimed, ["job_racing"]);
    // Another connection: the render request committed after the claim's snapshot.
    await renderJobOf("job_racing_render", "job_racing");
    assert.deepEqual([...(await sourcesOfActiveRenders(trx, claimed))], ["job_racing"]);
  });
  await database.db.updateTable("jobs").set({ status: "canceled" }).where("id", "=", "job_racing_render").execute();
});

test("an expiry whose claim a render request races keeps the source's files for that render", async () => {
  await completedJob("job_raced", new Date(Date.now() - 1000));
  let raced = false;
  await expireResultFiles(database.db, createLocalResultStore(root), pino({ level: "silent" }), {
    // Another connection: the render request commits after the claim's snapshot.
    afterClaim: async (claimed) => {
      if (!claimed.includes("job_raced")) return;
      await renderJobOf("job_raced_render", "job_raced");
      raced = true;
    },
  });
  assert.ok(raced, "the claim took the source");
  assert.equal(existsSync(path.join(root, "job_raced", "source-video")), true, "kept for the render that raced the claim");
  await database.db.updateTable("jobs").set({ status: "canceled" }).where("id", "=", "job_raced_render").execute();
});

test("an expired render job's edited words leave the database with its files", async () => {
  await completedJob("job_words_source", new Date(Date.now() + 3600_000));
  const store = createLocalResultStore(root);
  await writeFile(path.join(root, "render-file"), "x");
  await store.put("job_words_render", "captioned.mp4", path.join(root, "render-file"), "video/mp4");
  await database.db
    .insertInto("jobs")
    .values({
      id: "job_words_render", account_id: "acct_1", kind: "render", source_job_id: "job_words_source", status: "completed", video_url: "https://a/b.mp4", preset: "classic", style: "{}",
      max_duration_seconds: 600, words: JSON.stringify([{ text: "private words", start: 0, end: 1 }]), expires_at: new Date(Date.now() - 1000), finished_at: new Date(Date.now() - 2000),
    })
    .execute();
  await expireResultFiles(database.db, store, pino({ level: "silent" }));
  const row = await database.db.selectFrom("jobs").select(["words", "files_deleted_at"]).where("id", "=", "job_words_render").executeTakeFirstOrThrow();
  assert.equal(row.words, null);
  assert.ok(row.files_deleted_at instanceof Date);
  assert.equal(existsSync(path.join(root, "job_words_render")), false);
});

test("files a job left when it died (failed by the dead-letter path, no expiry of its own) are deleted at the next run", async () => {
  const store = createLocalResultStore(root);
  await writeFile(path.join(root, "partial"), "x");
  // What an attempt that died mid-store leaves: some files under the job's key, then the dead-letter handler's failJob.
  await store.put("job_died", "captioned.mp4", path.join(root, "partial"), "video/mp4");
  await store.put("job_died", "source-video", path.join(root, "partial"), "video/mp4");
  await database.db
    .insertInto("jobs")
    .values({
      id: "job_died", account_id: "acct_1", status: "failed", error_code: "INTERNAL_ERROR", error_message: "processing was interrupted repeatedly; no charge was made",
      video_url: "https://a/b.mp4", preset: "classic", style: "{}", max_duration_seconds: 600, finished_at: new Date(Date.now() - 1000),
    })
    .execute();
  assert.equal(existsSync(path.join(root, "job_died", "captioned.mp4")), true);
  await expireResultFiles(database.db, store, pino({ level: "silent" }));
  assert.equal(existsSync(path.join(root, "job_died")), false);
  const row = await database.db.selectFrom("jobs").select(["status", "files_deleted_at", "expires_at"]).where("id", "=", "job_died").executeTakeFirstOrThrow();
  assert.equal(row.status, "failed");
  assert.ok(row.files_deleted_at instanceof Date);
  assert.equal(row.expires_at, null, "a failed job shows no expiry to its client");
});
