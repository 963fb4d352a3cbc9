import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { insertQueuedJob } from "@caption/shared/testing/job-rows";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { deleteProgressEventsBefore } from "./job-event-repository.ts";
import { deleteDeliveriesBefore } from "./webhook-delivery-repository.ts";

// What maintenance prunes (control-plane/src/services/maintenance.ts), and what it keeps.

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
  const db = database.db;
  await db.insertInto("accounts").values({ id: "acct_r", name: "r", created_at: new Date() }).execute();
  await insertQueuedJob(db, { id: "job_r", accountId: "acct_r" });
  await db.insertInto("webhook_endpoints").values({ id: "we_r", account_id: "acct_r", url: "https://r.example.com/", events: ["job.progress", "job.completed"], secret: "whsec_AAAA", created_at: new Date() }).execute();
  await db.updateTable("jobs").set({ status: "ingesting", progress: 10 }).where("id", "=", "job_r").execute();
  await db.updateTable("jobs").set({ progress: 20 }).where("id", "=", "job_r").execute();
  await db.updateTable("jobs").set({ status: "canceled" }).where("id", "=", "job_r").execute();
});
after(() => database?.dispose());

test("progress events go, status events stay as the job's history; deliveries of pruned events go with them", async () => {
  const db = database.db;
  const { n: deliveriesBefore } = await db.selectFrom("webhook_deliveries").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  assert.equal(Number(deliveriesBefore), 2, "job.progress for the move to ingesting and for passing 20 %");
  await deleteProgressEventsBefore(db, new Date(Date.now() - 3600_000));
  assert.equal((await db.selectFrom("job_events").select("type").where("type", "=", "progress").execute()).length, 1, "a recent one is kept");
  await deleteProgressEventsBefore(db, new Date(Date.now() + 3600_000));
  const left = await db.selectFrom("job_events").select(["type", "status"]).where("job_id", "=", "job_r").orderBy("id").execute();
  assert.deepEqual(left.map((e) => `${e.type}:${e.status}`), ["status:queued", "status:ingesting", "status:canceled"]);
  const deliveries = await db.selectFrom("webhook_deliveries").select("type").orderBy("id").execute();
  assert.deepEqual(deliveries.map((d) => d.type), ["job.progress"], "the job.progress of the ingesting status event; the canceled job has no subscription");
});

test("deliveries queued before the cut-off go, pending (stuck) ones too; newer ones stay", async () => {
  const db = database.db;
  const weekAgo = new Date(Date.now() - 8 * 24 * 3600_000);
  await db.updateTable("webhook_deliveries").set({ state: "delivered", created_at: weekAgo }).execute();
  // A stuck pending delivery as old, and another job's fresh one.
  await insertQueuedJob(db, { id: "job_old", accountId: "acct_r" });
  await db.updateTable("jobs").set({ status: "ingesting" }).where("id", "=", "job_old").execute();
  await db.updateTable("webhook_deliveries").set({ created_at: weekAgo }).where("job_id", "=", "job_old").execute();
  await insertQueuedJob(db, { id: "job_s", accountId: "acct_r" });
  await db.updateTable("jobs").set({ status: "ingesting" }).where("id", "=", "job_s").execute();
  await deleteDeliveriesBefore(db, new Date(Date.now() - 7 * 24 * 3600_000));
  const left = await db.selectFrom("webhook_deliveries").select(["job_id", "state"]).execute();
  assert.deepEqual(left, [{ job_id: "job_s", state: "pending" }]);
});
