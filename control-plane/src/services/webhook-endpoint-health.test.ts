import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pino from "pino";
import { insertQueuedJob } from "@caption/shared/testing/job-rows";
import { manualClock } from "@caption/shared/testing/manual-clock";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import type { WebhookEventType } from "@caption/shared/api/webhook";
import { createResultLinks } from "../storage/create-result-links.ts";
import { createUrlSigner } from "../storage/signed-url.ts";
import { insertAccountWithEndpoints } from "../testing/webhook-endpoint-rows.ts";
import { recordEndpointHealth } from "./webhook-endpoint-health.ts";
import { enableWebhookEndpoint } from "./webhook-endpoint-service.ts";
import { sendWebhookAttempt, type WebhookSenderDeps } from "./webhook-sender.ts";

// An endpoint that fails every attempt for 3 days and 20 attempts is disabled, says so to the
// account's other endpoints, and can be enabled again; a send that fails inside the service is
// retried within the 24 h window, then given up. Dates are given; nothing waits.

let database: TestDatabase;
const T0 = new Date("2030-05-01T00:00:00.000Z");
const hours = (h: number) => new Date(T0.getTime() + h * 3600_000);

before(async () => {
  database = await createTestDatabase();
});
after(() => database.dispose());

let serial = 0;
async function account(endpoints: { events: WebhookEventType[] }[]): Promise<{ accountId: string; ids: string[] }> {
  const accountId = `acct_h${++serial}`;
  return { accountId, ids: await insertAccountWithEndpoints(database.db, accountId, endpoints, T0) };
}

const health = (endpoint: string, ok: boolean, when: Date) => database.db.transaction().execute((trx) => recordEndpointHealth(trx, endpoint, ok, when));
const endpointRow = (id: string) => database.db.selectFrom("webhook_endpoints").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

test("20 failures within a day do not disable; failing for 3 days does, once the 20th attempt has failed", async () => {
  const { ids: [failing = ""] } = await account([{ events: ["job.completed"] }]);
  for (let i = 0; i < 25; i++) assert.equal(await health(failing, false, hours(i / 2)), undefined);
  // Still failing 3 days after the first failure: disabled now.
  const disabled = await health(failing, false, hours(72));
  assert.ok(disabled);
  assert.equal(disabled.disabled_reason, "every attempt failed since 2030-05-01T00:00:00.000Z (26 attempts)");
  assert.equal(await health(failing, false, hours(73)), undefined, "disabled once");
});

test("failing for 3 days with fewer than 20 attempts does not disable; a success starts the count again", async () => {
  const { ids: [endpoint = ""] } = await account([{ events: ["job.completed"] }]);
  for (let i = 0; i < 19; i++) await health(endpoint, false, hours(i * 5));
  assert.equal((await endpointRow(endpoint)).disabled_at, null, "19 attempts over 90 hours");
  await health(endpoint, true, hours(91));
  const row = await endpointRow(endpoint);
  assert.deepEqual([row.failing_since, row.consecutive_failures], [null, 0]);
  for (let i = 0; i < 20; i++) await health(endpoint, false, hours(92 + i));
  assert.equal((await endpointRow(endpoint)).disabled_at, null, "20 attempts, but over 19 hours");
});

test("disabling gives up the endpoint's pending deliveries, tells the account's subscribed endpoints, queues nothing more for it; enabling resumes", async () => {
  const { accountId, ids } = await account([{ events: ["job.canceled"] }, { events: ["webhook_endpoint.disabled"] }, { events: ["job.canceled"] }]);
  const [dead = "", watcher = "", bystander = ""] = ids;
  await insertQueuedJob(database.db, { id: `job_${accountId}`, accountId });
  await database.db.updateTable("jobs").set({ status: "canceled" }).where("id", "=", `job_${accountId}`).execute();
  for (let i = 0; i < 20; i++) await health(dead, false, hours(i * 3));
  assert.ok(await health(dead, false, hours(80)));

  const deliveries = await database.db.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "in", ids).orderBy("id").execute();
  assert.deepEqual(deliveries.map((d) => [d.endpoint_id, d.type, d.state]), [
    [dead, "job.canceled", "failed"],
    [bystander, "job.canceled", "pending"],
    [watcher, "webhook_endpoint.disabled", "pending"],
  ]);
  const told = JSON.parse(deliveries[2]?.payload ?? "{}");
  assert.equal(told.type, "webhook_endpoint.disabled");
  assert.deepEqual([told.data.id, told.data.status, told.data.disabled_at], [dead, "disabled", hours(80).toISOString()]);
  assert.equal(told.data.secret, undefined);
  assert.match(deliveries[2]?.event_id ?? "", /^evt_[0-9A-HJKMNP-TV-Z]{26}$/);

  await insertQueuedJob(database.db, { id: `job_${accountId}_2`, accountId });
  await database.db.updateTable("jobs").set({ status: "canceled" }).where("id", "=", `job_${accountId}_2`).execute();
  const later = await database.db.selectFrom("webhook_deliveries").select("endpoint_id").where("job_id", "=", `job_${accountId}_2`).execute();
  assert.deepEqual(later.map((d) => d.endpoint_id), [bystander], "nothing for the disabled endpoint");

  const enabled = await enableWebhookEndpoint(database.db, accountId, dead);
  assert.deepEqual([enabled.status, enabled.disabled_at, enabled.disabled_reason], ["enabled", null, null]);
  assert.equal((await endpointRow(dead)).consecutive_failures, 0);
  await insertQueuedJob(database.db, { id: `job_${accountId}_3`, accountId });
  await database.db.updateTable("jobs").set({ status: "canceled" }).where("id", "=", `job_${accountId}_3`).execute();
  const resumed = await database.db.selectFrom("webhook_deliveries").select("endpoint_id").where("job_id", "=", `job_${accountId}_3`).orderBy("endpoint_id").execute();
  assert.deepEqual(resumed.map((d) => d.endpoint_id), [dead, bystander].sort());
  await assert.rejects(enableWebhookEndpoint(database.db, "acct_someone_else", dead), /not found/i);
});

test("a send that fails inside the service is retried on the schedule, unqueued, then given up 24 h after the event; no attempt is recorded", async () => {
  const { accountId, ids: [endpoint = ""] } = await account([{ events: ["job.canceled"] }]);
  // A secret that cannot sign (a damaged row): the failure is ours, before anything is sent.
  await database.db.updateTable("webhook_endpoints").set({ secret: "whsec_!!!" }).where("id", "=", endpoint).execute();
  await insertQueuedJob(database.db, { id: `job_${accountId}`, accountId });
  await database.db.updateTable("jobs").set({ status: "canceled" }).where("id", "=", `job_${accountId}`).execute();
  const row = await database.db.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", endpoint).executeTakeFirstOrThrow();
  const eventAt = new Date(row.event_at);
  const clock = manualClock(eventAt.getTime() + 1000);
  let settled = 0;
  const deps: WebhookSenderDeps = {
    db: database.db,
    resultLinks: createResultLinks({ kind: "local", root: "/nonexistent" }, createUrlSigner("k"), {}, clock.date),
    publicBaseUrl: "https://api.example.com",
    fallbackBaseUrl: "https://api.example.com",
    post: { timeoutMs: 1000, allowPrivateAddresses: false },
    retryBaseMs: 10_000,
    logger: pino({ level: "silent" }),
    now: clock.date,
    onSettled: () => (settled += 1),
  };
  await database.db.updateTable("webhook_deliveries").set({ enqueued: true }).where("id", "=", row.id).execute();
  await sendWebhookAttempt(deps, { delivery_id: row.id, attempts_before: 0 });
  let after = await database.db.selectFrom("webhook_deliveries").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
  assert.deepEqual([after.state, after.enqueued, after.internal_failures, after.attempts], ["pending", false, 1, 0]);
  assert.equal(after.next_attempt_at?.getTime(), clock.now() + 10_000);
  clock.set(eventAt.getTime() + 2 * 3600_000);
  await sendWebhookAttempt(deps, { delivery_id: row.id, attempts_before: 0 });
  after = await database.db.selectFrom("webhook_deliveries").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
  assert.deepEqual([after.state, after.internal_failures], ["pending", 2]);
  assert.equal(after.next_attempt_at?.getTime(), clock.now() + 40_000, "the schedule's next step");
  clock.set(eventAt.getTime() + 24 * 3600_000);
  await sendWebhookAttempt(deps, { delivery_id: row.id, attempts_before: 0 });
  after = await database.db.selectFrom("webhook_deliveries").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
  assert.deepEqual([after.state, after.next_attempt_at, after.internal_failures], ["failed", null, 3]);
  assert.equal((await database.db.selectFrom("webhook_attempts").select("attempt").where("delivery_id", "=", row.id).execute()).length, 0);
  assert.equal(settled, 3, "each one woke the relay");
});
