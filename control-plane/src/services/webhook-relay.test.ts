import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pino from "pino";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { until } from "@caption/shared/testing/until";
import { startJobQueue, type JobQueue } from "../queue/job-queue.ts";
import { insertAccountWithEndpoints } from "../testing/webhook-endpoint-rows.ts";
import { startWebhookRelay } from "./webhook-relay.ts";

// However often the relay is woken (every job event and settled attempt wakes it), wakes during a
// pass fold into one more pass, and that pass waits out the gap from the last one's start: the
// relay's database work is bounded whatever the event rate. The gap's timer is the test's to hold.

let database: TestDatabase;
let queue: JobQueue;
const logger = pino({ level: "silent" });
const T0 = new Date("2030-04-01T00:00:00.000Z");

before(async () => {
  database = await createTestDatabase();
  queue = await startJobQueue(database.url, {}, logger);
});
after(async () => {
  await queue.stop();
  await database.dispose();
});

test("fifty wakes during a pass make one more pass, after the gap; a delivery due meanwhile goes in that pass", async () => {
  const [endpoint = ""] = await insertAccountWithEndpoints(database.db, "acct_relay", [{ events: ["webhook_endpoint.disabled"] }], T0);
  const pauses: number[] = [];
  let release: () => void = () => undefined;
  const pause = (ms: number) => {
    pauses.push(ms);
    return new Promise<void>((resolve) => (release = resolve));
  };
  const hour = 3_600_000;
  const relay = startWebhookRelay({ db: database.db, queue, logger, now: () => T0, sweepMs: hour, requeueMs: hour, capacity: 10, gapMs: 60_000, pause });
  try {
    // The first pass (at start) is running: these all fold into one more.
    for (let i = 0; i < 50; i++) relay.wake();
    await until("a pause", () => pauses.length > 0);
    assert.equal(pauses.length, 1);
    assert.ok((pauses[0] ?? 0) > 0 && (pauses[0] ?? 0) <= 60_000, `${pauses[0]} ms`);

    const row = await database.db
      .insertInto("webhook_deliveries")
      .values({ endpoint_id: endpoint, event_id: "evt_relay_1", type: "webhook_endpoint.disabled", event_at: T0, next_attempt_at: T0, payload: "{}" })
      .returning("id")
      .executeTakeFirstOrThrow();
    const enqueued = async () => (await database.db.selectFrom("webhook_deliveries").select("enqueued").where("id", "=", row.id).executeTakeFirstOrThrow()).enqueued;
    relay.wake();
    assert.equal(await enqueued(), false, "the relay waits out the gap");
    release();
    await until("the delivery enqueued", enqueued);
    assert.equal(pauses.length, 1, "the wake during the gap was folded into the pass that followed it");
  } finally {
    release();
    await relay.stop();
  }
});
