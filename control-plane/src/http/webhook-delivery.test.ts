import assert from "node:assert/strict";
import { createHmac, timingSafeEqual } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { JobStatus } from "@caption/shared/api/job";
import { QUEUES } from "@caption/shared/jobs/catalog";
import { startQueueClient } from "@caption/shared/jobs/queue-client";
import pino from "pino";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { until } from "@caption/shared/testing/until";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { webhookReceiver, type Answer, type WebhookReceiver } from "../testing/webhook-receiver.ts";

// Webhook delivery against the real API (which sends them) and receivers on loopback over HTTPS with
// the tests' CA. No worker runs: a job moves by the same UPDATEs a worker's transitions make, and the
// trigger on jobs queues the deliveries. The API is set up so that the slow paths cannot stand in for
// the ones under test within a test's time:
// - the relay's sweep comes every 10 minutes, so a delivery within the test came by NOTIFY;
// - an attempt waits 60 s for an answer, so one that waited for a hanging receiver's timeout shows;
// - a failed attempt is retried an hour later, so a second attempt within the test is a re-queue.
// - two attempts in flight per process (WEBHOOK_CONCURRENCY).

let t: TestApi;
let server: TestHttpsServer;

before(async () => {
  server = await startTestHttpsServer();
  t = await startTestApi(
    { ALLOW_PRIVATE_VIDEO_URLS: "true", WEBHOOK_TIMEOUT_SECONDS: "60", WEBHOOK_CONCURRENCY: "2", WEBHOOK_RETRY_BASE_SECONDS: "3600" },
    { webhookSweepMs: 600_000, webhookRequeueMs: 200 },
  );
});
after(async () => {
  // The server first: a request still hanging ends now rather than at its timeout.
  await server?.close();
  await t?.close();
});

let serial = 0;
/** An account with one endpoint at a receiver of its own. */
async function account(answer?: Answer, events?: string[]): Promise<{ key: string; receiver: WebhookReceiver; endpointId: string }> {
  const { api_key: key } = await t.createKey({ concurrency: 100 });
  const receiver = webhookReceiver(server, `/hook-${++serial}`, answer);
  const res = await t.request("POST", "/v1/webhook_endpoints", { key, body: { url: receiver.url, ...(events ? { events } : {}) } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  receiver.secret = res.body.secret;
  return { key, receiver, endpointId: res.body.id };
}

async function submit(key: string): Promise<string> {
  const res = await t.request("POST", "/v1/subtitles", { key, body: { video_url: "https://videos.example.com/clip.mp4" } });
  assert.equal(res.status, 202);
  return res.body.id;
}

async function submitAndCancel(key: string): Promise<string> {
  const id = await submit(key);
  assert.equal((await t.request("POST", `/v1/jobs/${id}/cancel`, { key })).body.status, "canceled");
  return id;
}

/** The delivery's queue entries (pg-boss), with their states. */
const entries = async (deliveryId: number) =>
  (await sql<{ state: string }>`SELECT state FROM pgboss.job WHERE name = ${QUEUES.webhookDelivery} AND data->>'delivery_id' = ${String(deliveryId)}`.execute(t.database.db)).rows;

const deliveryOf = (jobId: string) => t.database.db.selectFrom("webhook_deliveries").selectAll().where("job_id", "=", jobId).executeTakeFirstOrThrow();

/** Standard Webhooks verification written out with node:crypto, independent of the library the receiver uses. */
function verifiesWithNodeCrypto(secret: string, id: string, timestamp: string, body: string, signatureHeader: string): boolean {
  assert.match(secret, /^whsec_/);
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = Buffer.from(createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64"));
  return signatureHeader.split(" ").some((entry) => {
    const [version, signature = ""] = entry.split(",");
    const given = Buffer.from(signature);
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

describe("webhook delivery", () => {
  test("a delivery goes out by NOTIFY, without the relay's sweep; its signature verifies with node:crypto too", async () => {
    const { key, receiver } = await account();
    const id = await submitAndCancel(key);
    // The sweep is 10 minutes away: only the trigger's NOTIFY can have woken the relay.
    const delivered = await receiver.waitFor((r) => r.payload.data.id === id, 120_000);
    assert.equal(delivered.payload.type, "job.canceled");
    assert.ok(verifiesWithNodeCrypto(receiver.secret ?? "", delivered.id, delivered.timestamp, delivered.body, delivered.signature));
    // The check bites: another body, id or timestamp does not verify.
    assert.ok(!verifiesWithNodeCrypto(receiver.secret ?? "", delivered.id, delivered.timestamp, delivered.body.replace("canceled", "cancelled"), delivered.signature));
    assert.ok(!verifiesWithNodeCrypto(receiver.secret ?? "", `${delivered.id}0`, delivered.timestamp, delivered.body, delivered.signature));
    assert.ok(!verifiesWithNodeCrypto(receiver.secret ?? "", delivered.id, String(Number(delivered.timestamp) + 1), delivered.body, delivered.signature));
  });

  test("a job.progress delivery sent after the job moved on carries the event's status and progress", async () => {
    const { key, receiver } = await account(undefined, ["job.progress", "job.completed"]);
    const id = await submit(key);
    // Three events committed at once: every first attempt comes after the job is completed.
    await t.database.db.transaction().execute(async (trx) => {
      const move = (set: { status?: JobStatus; progress: number }) => trx.updateTable("jobs").set(set).where("id", "=", id).execute();
      await move({ status: "ingesting", progress: 4 });
      await move({ progress: 12.5 });
      await move({ status: "completed", progress: 100 });
    });
    await receiver.waitFor((r) => r.payload.type === "job.completed" && r.payload.data.id === id, 120_000);
    const seen = await until("three deliveries", async () => {
      const mine = receiver.unique().filter((r) => r.payload.data.id === id);
      return mine.length === 3 ? mine : undefined;
    });
    const events = await t.database.db.selectFrom("job_events").select(["id", "status", "progress"]).where("job_id", "=", id).execute();
    const job = (await t.request("GET", `/v1/jobs/${id}`, { key })).body;
    const byEvent = (r: (typeof seen)[number]) => events.find((e) => `evt_${e.id}` === r.id);
    assert.deepEqual(
      seen.map((r) => [r.payload.type, r.payload.data.status, r.payload.data.progress]).sort(),
      [["job.completed", "completed", 100], ["job.progress", "ingesting", 12.5], ["job.progress", "ingesting", 4]],
    );
    for (const received of seen) {
      const event = byEvent(received);
      assert.ok(event, received.id);
      // Otherwise data is the Job as GET /v1/jobs/{id} returns it.
      assert.deepEqual(received.payload.data, { ...job, status: event.status, progress: event.progress });
    }
  });

  test("a failed attempt's retry waits unqueued; a delivery handed to the queue whose entry was lost is queued again and delivered under the same id", async () => {
    const { key, receiver, endpointId } = await account((_request, attempt) => (attempt === 1 ? 500 : 204));
    const id = await submitAndCancel(key);
    const first = await receiver.waitFor((r) => r.payload.data.id === id);
    const delivery = await until("the failed first attempt", async () => {
      const row = await deliveryOf(id);
      return row.attempts === 1 ? row : undefined;
    });
    assert.equal(delivery.state, "pending");
    assert.equal(delivery.enqueued, false, "the retry, an hour ahead, is the relay's to queue when due");
    // The attempt is recorded before its queue entry is completed: that entry ends, and no other is left.
    await until("the first attempt's queue entry completed", async () => ((await entries(delivery.id)).every((e) => e.state === "completed") ? true : undefined));
    // Say the relay handed it over and the queue lost the entry; the hour passes.
    await t.database.db.updateTable("webhook_deliveries").set({ enqueued: true, next_attempt_at: sql<Date>`now() - interval '1 hour'` }).where("id", "=", delivery.id).execute();

    const retried = await receiver.waitFor((r) => r.payload.data.id === id && r.answered === 204, 120_000);
    assert.equal(retried.id, first.id, "one webhook-id across attempts");
    assert.equal(retried.body, first.body);
    await until("the attempt recorded", async () => ((await deliveryOf(id)).state === "delivered" ? true : undefined));
    const log = await t.request("GET", `/v1/webhook_endpoints/${endpointId}/deliveries`, { key });
    const entry = log.body.deliveries.find((d: { job_id: string }) => d.job_id === id);
    assert.equal(entry.status, "delivered");
    assert.deepEqual(entry.attempts.map((a: { status_code: number }) => a.status_code), [500, 204]);
  });

  test("a delivery re-queued while its old queue entry still waits is attempted once", async () => {
    const { key, receiver, endpointId } = await account((_request, attempt) => (attempt === 1 ? 500 : 204));
    const id = await submitAndCancel(key);
    await receiver.waitFor((r) => r.payload.data.id === id);
    const delivery = await until("the failed first attempt", async () => {
      const row = await deliveryOf(id);
      return row.attempts === 1 ? row : undefined;
    });
    // The retry was handed over, and its entry waits behind a backlog past the overdue mark: the
    // delivery is re-queued, and then the old entry comes due too. Both run.
    const boss = await startQueueClient(t.database.url, { supervise: false, schedule: false }, { max: 1 }, pino({ level: "silent" }));
    try {
      await boss.send(QUEUES.webhookDelivery, { delivery_id: delivery.id, attempts_before: 1 }, { startAfter: 3600 });
    } finally {
      await boss.stop({ graceful: false, close: true });
    }
    await t.database.db.updateTable("webhook_deliveries").set({ enqueued: true, next_attempt_at: sql<Date>`now() - interval '1 hour'` }).where("id", "=", delivery.id).execute();
    await until("the re-queue", async () => ((await entries(delivery.id)).length === 3 ? true : undefined));
    await sql`UPDATE pgboss.job SET start_after = now() WHERE name = ${QUEUES.webhookDelivery} AND data->>'delivery_id' = ${String(delivery.id)} AND state = 'created'`.execute(t.database.db);

    await receiver.waitFor((r) => r.payload.data.id === id && r.answered === 204, 120_000);
    // Three entries in all (the first attempt, the old one, the re-queue), every one finished.
    await until("every queue entry settled", async () => {
      const rows = await entries(delivery.id);
      return rows.length === 3 && rows.every((row) => row.state === "completed") ? rows : undefined;
    });
    const log = await t.request("GET", `/v1/webhook_endpoints/${endpointId}/deliveries`, { key });
    const entry = log.body.deliveries.find((d: { job_id: string }) => d.job_id === id);
    assert.equal(entry.status, "delivered");
    assert.deepEqual(entry.attempts.map((a: { status_code: number }) => a.status_code), [500, 204], "the second entry to run recorded nothing");
    assert.equal(receiver.unique().filter((r) => r.payload.data.id === id).length, 1, "one event");
  });

  test("a delivery due past the 24 h window whose queue entry was lost is given up, not queued again", async () => {
    const { key } = await account(() => 204);
    const id = await submitAndCancel(key);
    await until("delivered", async () => ((await deliveryOf(id)).state === "delivered" ? true : undefined));
    // Put it back as if its queue entry were lost a day and more ago.
    await t.database.db
      .updateTable("webhook_deliveries")
      .set({ state: "pending", enqueued: true, event_at: sql<Date>`now() - interval '25 hours'`, next_attempt_at: sql<Date>`now() - interval '1 hour'` })
      .where("job_id", "=", id)
      .execute();
    await until("given up", async () => ((await deliveryOf(id)).state === "failed" ? true : undefined));
    assert.equal((await entries((await deliveryOf(id)).id)).length, 1, "only the first attempt's entry");
  });

  // Run last: the hanging requests hold one of the two slots until the server closes.
  test("an account with 10 endpoints that never answer holds one slot; another account's deliveries go on meanwhile", async () => {
    const dead = await account(() => "never");
    for (let i = 1; i < 10; i++) {
      const res = await t.request("POST", "/v1/webhook_endpoints", { key: dead.key, body: { url: webhookReceiver(server, `/dead-${serial}-${i}`, () => "never").url } });
      assert.equal(res.status, 201);
    }
    const live = await account();
    // Submit-and-cancel churn: 30 deliveries that each hang for 60 s.
    const deadJobs = [await submitAndCancel(dead.key), await submitAndCancel(dead.key), await submitAndCancel(dead.key)];
    const hanging = await dead.receiver.waitFor((r) => r.payload.data.id === deadJobs[0], 120_000);
    // With WEBHOOK_CONCURRENCY 2, the dead account's share is one place; three deliveries must pass through the other.
    const jobs = [await submitAndCancel(live.key), await submitAndCancel(live.key), await submitAndCancel(live.key)];
    for (const id of jobs) await live.receiver.waitFor((r) => r.payload.data.id === id, 120_000);
    assert.ok(hanging.open, "every delivery arrived while the dead receiver's attempt was still waiting for an answer");
    const deadDeliveries = await t.database.db.selectFrom("webhook_deliveries").select(["attempts", "enqueued"]).where("job_id", "in", deadJobs).execute();
    assert.equal(deadDeliveries.length, 30);
    assert.equal(deadDeliveries.filter((d) => d.enqueued).length, 1, "one of the 30 in the queue");
    assert.equal(deadDeliveries.reduce((sum, d) => sum + d.attempts, 0), 0, "that attempt is still in flight");
  });
});
