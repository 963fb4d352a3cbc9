import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pino from "pino";
import { grantCredits } from "@caption/shared/db/credit-ledger";
import { insertQueuedJob } from "@caption/shared/testing/job-rows";
import { manualClock } from "@caption/shared/testing/manual-clock";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { loadJob } from "../db/job-repository.ts";
import { traceAttempt } from "../telemetry/attempt-tracing.ts";
import type { AttemptContext } from "./attempt-context.ts";
import { advanceJob, reserveForJob } from "@caption/shared/jobs/job-lifecycle";
import { completeWithCharge } from "./output-stages.ts";
import { RESULT_FILES } from "../storage/result-store.ts";

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
  await database.db.insertInto("accounts").values({ id: "acct_1", name: "a" }).execute();
  await grantCredits(database.db, "acct_1", 60);
});
after(() => database.dispose());

test("a completed job's files expire a day after the clock's now at completion", async () => {
  const { db } = database;
  await insertQueuedJob(db, { id: "job_1", accountId: "acct_1" });
  assert.ok(await advanceJob(db, "job_1", { status: "rendering", progress: 90 }));
  assert.equal(await reserveForJob(db, "job_1", 5), "reserved");
  const job = (await loadJob(db, "job_1"))!;
  const clock = manualClock(Date.UTC(2026, 5, 1, 12));
  await traceAttempt("job_1", undefined, (tracing) => {
    // What completing reads of an attempt's context.
    const ctx = { deps: { db, clock }, job, log: pino({ level: "silent" }), tracing, started: performance.now() } as unknown as AttemptContext;
    const video = { framesDrawn: 1, renderedSeconds: 5, files: [RESULT_FILES.video], pictures: [] };
    const quality = { profile: "netflix", cues: 3, cues_breaking_rules: 1, low_confidence_words: 2 } as const;
    return completeWithCharge(ctx, { seconds: 5, video, quality, pictures: [], storedBytes: 12_345 });
  });
  const row = (await loadJob(db, "job_1"))!;
  assert.equal(row.status, "completed");
  assert.equal(row.billed_seconds, 5);
  assert.equal(row.expires_at?.toISOString(), "2026-06-02T12:00:00.000Z");
  assert.deepEqual(row.quality, { profile: "netflix", cues: 3, cues_breaking_rules: 1, low_confidence_words: 2 });
  assert.equal(row.quality_key, "job_1/quality.json");
  assert.equal(row.stored_bytes, 12_345);
});
