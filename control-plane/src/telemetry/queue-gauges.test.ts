// The queue and webhook-backlog gauges read at a scrape, through the real Prometheus exposition; and what a
// scrape shows while the database cannot be read (caption_database_up 0: the DatabaseUnavailable alert's signal).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import pino from "pino";
import { startTelemetry, type Telemetry } from "@caption/shared/telemetry/telemetry";
import { insertQueuedJob } from "@caption/shared/testing/job-rows";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { insertAccountWithEndpoints } from "../testing/webhook-endpoint-rows.ts";
import { observeQueue, webhookBacklog } from "./queue-gauges.ts";

let telemetry: Telemetry;
let database: TestDatabase;
const logger = pino({ level: "silent" });

before(async () => {
  telemetry = startTelemetry({ serviceName: "queue-gauges-test", otlp: false });
  database = await createTestDatabase();
});
after(async () => {
  await telemetry.shutdown();
  await database.dispose();
});

/** Every sample of `name` in a scrape (its labels left out: these gauges carry none of their own). */
async function samples(name: string): Promise<number[]> {
  const text = await telemetry.prometheusText();
  return [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "gm"))].map((m) => Number(m[1]));
}

const secondsAgo = (s: number) => new Date(Date.now() - s * 1000);
let serial = 0;
async function delivery(endpoint: string, dueAt: Date, enqueued = false): Promise<void> {
  await database.db
    .insertInto("webhook_deliveries")
    .values({ endpoint_id: endpoint, event_id: `evt_${++serial}`, type: "webhook_endpoint.disabled", event_at: dueAt, next_attempt_at: dueAt, payload: "{}", enqueued })
    .execute();
}

test("the webhook backlog counts what the service owes now: queued attempts and each free endpoint's first due delivery", async () => {
  const stop = observeQueue(database.db, logger);
  try {
    assert.deepEqual(await samples("caption_webhooks_due"), [0]);
    assert.deepEqual(await samples("caption_webhooks_oldest_due_age"), [0]);

    const [free = "", waiting = "", busy = "", disabled = ""] = await insertAccountWithEndpoints(
      database.db,
      "acct_gauges",
      Array.from({ length: 4 }, () => ({ events: ["webhook_endpoint.disabled" as const] })),
      secondsAgo(3600),
    );
    // Due 120 s ago and not handed over: owed. The two behind it wait their turn (one in flight per endpoint).
    await delivery(free, secondsAgo(120));
    await delivery(free, secondsAgo(60));
    await delivery(free, secondsAgo(30));
    // A receiver in its retry wait owes nothing yet.
    await delivery(waiting, new Date(Date.now() + 3_600_000));
    // An attempt queued 30 s ago is owed; the 600 s old delivery behind it waits for that one to settle.
    await delivery(busy, secondsAgo(30), true);
    await delivery(busy, secondsAgo(600));
    // A disabled endpoint's deliveries are never sent.
    await delivery(disabled, secondsAgo(900));
    await database.db.updateTable("webhook_endpoints").set({ disabled_at: secondsAgo(1) }).where("id", "=", disabled).execute();

    assert.deepEqual(await samples("caption_webhooks_due"), [2]);
    const [age = -1] = await samples("caption_webhooks_oldest_due_age");
    assert.ok(age >= 120 && age < 600, `oldest due ${age} s: the free endpoint's first, not a delivery waiting behind another`);
  } finally {
    stop();
  }
});

test("the backlog is read as the relay reads it: one index step per endpoint, however many of its deliveries are due", async () => {
  const [endpoint = ""] = await insertAccountWithEndpoints(database.db, "acct_long_backlog", [{ events: ["webhook_endpoint.disabled"] }], secondsAgo(7200));
  // A receiver back after an outage: 300 deliveries due, the oldest an hour ago; only its first is owed now.
  const due = Array.from({ length: 300 }, (_, i) => secondsAgo(3600 - i));
  await database.db
    .insertInto("webhook_deliveries")
    .values(due.map((at) => ({ endpoint_id: endpoint, event_id: `evt_${++serial}`, type: "webhook_endpoint.disabled" as const, event_at: at, next_attempt_at: at, payload: "{}" })))
    .execute();
  await sql`ANALYZE webhook_deliveries`.execute(database.db); // as autovacuum would: the plan is what is under test
  // Rows the read fetched through indexes, in a transaction of its own (every other endpoint here has few).
  const { backlog, fetched } = await database.db.transaction().execute(async (trx) => {
    const backlog = await webhookBacklog(trx);
    const stats = await sql<{ fetched: string }>`
      SELECT idx_tup_fetch AS fetched FROM pg_stat_xact_user_tables WHERE relname = 'webhook_deliveries'`.execute(trx);
    return { backlog, fetched: Number(stats.rows[0]?.fetched ?? 0) };
  });
  assert.ok((backlog.age ?? 0) >= 3600, `the endpoint's first due delivery is the oldest owed (${backlog.age} s)`);
  assert.ok(fetched < 100, `fetched ${fetched} rows for an endpoint with 300 due`);
});

test("queued jobs: depth and the oldest one's age", async () => {
  const stop = observeQueue(database.db, logger);
  try {
    assert.deepEqual(await samples("caption_queue_depth"), [0]);
    assert.deepEqual(await samples("caption_queue_oldest_age"), [0]);
    await database.db.insertInto("accounts").values({ id: "acct_queued", name: "acct_queued", created_at: secondsAgo(3600) }).execute();
    for (const [id, age] of [["job_older", 90], ["job_newer", 10]] as const) {
      await insertQueuedJob(database.db, { id, accountId: "acct_queued" });
      await database.db.updateTable("jobs").set({ created_at: secondsAgo(age) }).where("id", "=", id).execute();
    }
    assert.deepEqual(await samples("caption_queue_depth"), [2]);
    const [age = -1] = await samples("caption_queue_oldest_age");
    assert.ok(age >= 90 && age < 120, `the older job's age, ${age} s`);
  } finally {
    stop();
  }
});

test("a scrape while the database cannot be read says so with caption_database_up 0, and still answers", async () => {
  const lost = await createTestDatabase();
  const stop = observeQueue(lost.db, logger);
  try {
    assert.deepEqual(await samples("caption_database_up"), [1]);
    await lost.dispose();
    assert.deepEqual(await samples("caption_database_up"), [0]);
    // The SDK keeps an asynchronous gauge's last value when a collection observes none: the queue gauges
    // cannot tell an outage by their absence, hence the gauge above.
    assert.deepEqual(await samples("caption_queue_depth"), [0]);
  } finally {
    stop();
  }
});
