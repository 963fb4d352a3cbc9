import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { JobStatus } from "../api/job.ts";
import type { WebhookEventType } from "../api/webhook.ts";
import { insertQueuedJob } from "../testing/job-rows.ts";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.ts";

// The trigger on jobs writes a job's history and queues webhook deliveries in the transaction that
// changes the job: committed together, or not at all.

let database: TestDatabase;
let n = 0;

before(async () => {
  database = await createTestDatabase();
  await database.db.insertInto("accounts").values([{ id: "acct_a", name: "a", created_at: new Date() }, { id: "acct_b", name: "b", created_at: new Date() }]).execute();
  const endpoint = (id: string, account: string, events: WebhookEventType[]) => ({ id, account_id: account, url: `https://${id}.example.com/`, events, secret: "whsec_AAAA", created_at: new Date() });
  await database.db
    .insertInto("webhook_endpoints")
    .values([endpoint("we_terminal", "acct_a", ["job.completed", "job.failed", "job.canceled"]), endpoint("we_progress", "acct_a", ["job.progress"]), endpoint("we_other", "acct_b", ["job.completed", "job.progress"])])
    .execute();
});
after(() => database?.dispose());

async function newJob(): Promise<string> {
  const id = `job_${++n}`;
  await insertQueuedJob(database.db, { id, accountId: "acct_a" });
  return id;
}
const set = (id: string, values: { status?: JobStatus; progress?: number }) => database.db.updateTable("jobs").set(values).where("id", "=", id).execute();
const history = async (id: string) => (await database.db.selectFrom("job_events").select(["type", "status", "progress"]).where("job_id", "=", id).orderBy("id").execute()).map((e) => `${e.type}:${e.status}:${e.progress}`);
const deliveries = async (id: string) => (await database.db.selectFrom("webhook_deliveries").select(["endpoint_id", "type", "event_id", "job_event_id"]).where("job_id", "=", id).orderBy("id").execute());

test("every change of status or progress is one event; unchanged values and other columns are none", async () => {
  const id = await newJob();
  await set(id, { status: "ingesting" });
  await set(id, { progress: 4 });
  await set(id, { progress: 4 });
  await database.db.updateTable("jobs").set({ attempts: 1 }).where("id", "=", id).execute();
  await set(id, { status: "completed", progress: 100 });
  assert.deepEqual(await history(id), ["status:queued:0", "status:ingesting:0", "progress:ingesting:4", "status:completed:100"]);
});

test("deliveries: terminal events to their subscribers, job.progress on moves and each 10 %, never to another account", async () => {
  const id = await newJob();
  await set(id, { status: "ingesting" });
  await set(id, { progress: 9.9 });
  await set(id, { progress: 10 });
  await set(id, { progress: 15 });
  await database.db.updateTable("jobs").set({ status: "failed", error_code: "INTERNAL_ERROR", error_message: "x" }).where("id", "=", id).execute();
  const rows = await deliveries(id);
  assert.deepEqual(rows.map((r) => `${r.endpoint_id}:${r.type}`), ["we_progress:job.progress", "we_progress:job.progress", "we_terminal:job.failed"]);
  for (const row of rows) assert.equal(row.event_id, `evt_${row.job_event_id}`);
});

test("a rolled-back change leaves no event and no delivery; a committed one leaves both", async () => {
  const id = await newJob();
  await database.db
    .transaction()
    .execute(async (trx) => {
      await trx.updateTable("jobs").set({ status: "canceled" }).where("id", "=", id).execute();
      throw new Error("the process died before the commit");
    })
    .catch(() => undefined);
  assert.deepEqual(await history(id), ["status:queued:0"]);
  assert.deepEqual(await deliveries(id), []);
  await database.db.transaction().execute((trx) => trx.updateTable("jobs").set({ status: "canceled" }).where("id", "=", id).execute());
  assert.deepEqual(await history(id), ["status:queued:0", "status:canceled:0"]);
  assert.deepEqual((await deliveries(id)).map((r) => r.type), ["job.canceled"]);
});
