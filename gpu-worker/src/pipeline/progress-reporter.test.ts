import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createDatabase, type Db } from "@caption/shared/db/database";
import { insertQueuedJob } from "@caption/shared/testing/job-rows";
import { manualClock } from "@caption/shared/testing/manual-clock";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { progressReporter } from "./progress-reporter.ts";

let database: TestDatabase;
// One connection: writes run in the order they are made, so an awaited write follows every earlier one.
let db: Db;

before(async () => {
  database = await createTestDatabase();
  db = createDatabase(database.url, { max: 1 });
  await database.db.insertInto("accounts").values({ id: "acct_1", name: "a" }).execute();
});
after(async () => {
  await db.destroy();
  await database.dispose();
});

const progressOf = async (jobId: string) => (await db.selectFrom("jobs").select("progress").where("id", "=", jobId).executeTakeFirstOrThrow()).progress;

test("progress within a stage is written at most once a second of the clock", async () => {
  await insertQueuedJob(db, { id: "job_1", accountId: "acct_1" });
  const clock = manualClock();
  const progress = progressReporter(db, "job_1", clock);
  await progress.report(10);
  progress.reportWithin([10, 50], 0.25);
  clock.advance(999);
  progress.reportWithin([10, 50], 0.5);
  assert.equal(await progressOf("job_1"), 10, "nothing within a second of the last write");
  clock.advance(1);
  progress.reportWithin([10, 50], 0.5);
  assert.equal(await progressOf("job_1"), 30, "a second later: the fraction of the band");
  progress.reportWithin([10, 50], 1);
  clock.advance(1000);
  progress.reportWithin([10, 50], 2);
  assert.equal(await progressOf("job_1"), 50, "fractions past the band are clamped to its end");
});
