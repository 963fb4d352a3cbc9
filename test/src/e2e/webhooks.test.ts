import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pino from "pino";
import { Webhook } from "standardwebhooks";
import { startApiServer } from "@caption/control-plane";
import { webhookReceiver, type WebhookReceiver } from "@caption/control-plane/testing";
import { makeSpeechVideo } from "@caption/gpu-worker/testing";
import { startTestHttpsServer, type TestHttpsServer } from "@caption/shared/testing/https-server";
import { startTestService, type TestService } from "../support/test-service.ts";

// Webhooks end to end: the real API (which sends them) and worker, receivers on loopback over HTTPS
// with the tests' CA that verify every signature with the standardwebhooks library. Retries run on a
// short schedule (WEBHOOK_RETRY_BASE_SECONDS=0.2: 0.2 s, 0.8 s, 3.2 s…) and attempts time out after 2 s.

let service: TestService;
let server: TestHttpsServer;
let key: string;
let good: WebhookReceiver;
let flaky: WebhookReceiver;
let silent: WebhookReceiver;
let video: string;

before(async () => {
  [service, server] = await Promise.all([startTestService({ env: { WEBHOOK_RETRY_BASE_SECONDS: "0.2", WEBHOOK_TIMEOUT_SECONDS: "2" } }), startTestHttpsServer()]);
  const clip = await makeSpeechVideo({ text: "Webhooks tell clients when a job is done.", width: 320, height: 240, fps: 10, padSeconds: 0.5 });
  server.serveFile("/clip.mp4", clip.path, "video/mp4");
  video = server.url("/clip.mp4");
  good = webhookReceiver(server, "/good");
  // 500 three times for each event, then 200.
  flaky = webhookReceiver(server, "/flaky", (_request, attempt) => (attempt <= 3 ? 500 : 200));
  // Takes every request and never answers.
  silent = webhookReceiver(server, "/silent", () => "never");
  ({ api_key: key } = await service.createKey());
  for (const [receiver, events] of [[good, undefined], [flaky, ["job.completed"]], [silent, ["job.completed", "job.progress"]]] as const) {
    const res = await service.call("POST", "/v1/webhook_endpoints", key, { url: receiver.url, ...(events ? { events } : {}) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    receiver.secret = res.body.secret;
  }
});
after(async () => {
  await server?.close();
  await service?.close();
});

const endpointOf = async (receiver: WebhookReceiver): Promise<string> => {
  const list = await service.call("GET", "/v1/webhook_endpoints", key);
  return list.body.webhook_endpoints.find((e: { url: string }) => e.url === receiver.url).id;
};

test("a completed job: one verified job.completed per receiver, retried through 500s under one id, while a receiver that never answers delays nothing", async () => {
  const submitted = await service.call("POST", "/v1/subtitles", key, { video_url: video });
  assert.equal(submitted.status, 202);
  const id: string = submitted.body.id;
  // The silent receiver holds an attempt open for 2 s at every progress step; the job goes on regardless.
  const job = await service.waitForJob(key, id);
  assert.equal(job.status, "completed", JSON.stringify(job));
  assert.ok(silent.received.some((r) => r.payload.type === "job.progress" && r.payload.data.id === id), "progress deliveries were attempted during the job");

  const delivered = await good.waitFor((r) => r.payload.type === "job.completed" && r.payload.data.id === id);
  const completed = good.unique().filter((r) => r.payload.type === "job.completed" && r.payload.data.id === id);
  assert.equal(completed.length, 1, "exactly one job.completed for the job after dropping duplicates");
  // data is the Job exactly as GET /v1/jobs/{id} shows it, signed links included.
  assert.deepEqual(delivered.payload.data, (await service.call("GET", `/v1/jobs/${id}`, key)).body);
  assert.match(delivered.id, /^evt_\d+$/);
  assert.match(delivered.signature, /^v1,[A-Za-z0-9+/]+=*$/);
  assert.ok(!Number.isNaN(Date.parse(delivered.payload.timestamp)));
  // The check bites: the same request with one byte changed does not verify.
  const tampered = delivered.body.replace('"completed"', '"c0mpleted"');
  assert.throws(() => new Webhook(good.secret ?? "").verify(tampered, { "webhook-id": delivered.id, "webhook-timestamp": delivered.timestamp, "webhook-signature": delivered.signature }));

  const retried = await flaky.waitFor((r) => r.payload.data.id === id && r.answered === 200, 60_000);
  const attempts = flaky.received.filter((r) => r.payload.data.id === id);
  assert.deepEqual(attempts.map((r) => r.answered), [500, 500, 500, 200]);
  assert.deepEqual(new Set(attempts.map((r) => r.id)), new Set([retried.id]), "one event id across retries");
  assert.ok(attempts.every((r) => r.body === retried.body), "every retry sends the same body");

  // The receiver has answered; the sender records that answer a moment later (seconds on a loaded machine).
  const flakyLog = `/v1/webhook_endpoints/${await endpointOf(flaky)}/deliveries`;
  let entry = undefined;
  for (let reads = 1; ; reads++) {
    entry = (await service.call("GET", flakyLog, key)).body.deliveries.find((d: { job_id: string }) => d.job_id === id);
    if (entry.status !== "pending" || reads === 100) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(entry.status, "delivered");
  assert.equal(entry.event_id, retried.id);
  assert.equal(entry.next_attempt_at, null);
  assert.deepEqual(entry.attempts.map((a: { status_code: number }) => a.status_code), [500, 500, 500, 200]);
  assert.match(entry.attempts[0].error, /HTTP 500/);

  await silent.waitFor((r) => r.payload.type === "job.completed" && r.payload.data.id === id);
  const silentLog = await service.call("GET", `/v1/webhook_endpoints/${await endpointOf(silent)}/deliveries`, key);
  const waiting = silentLog.body.deliveries.find((d: { job_id: string; type: string; attempts: unknown[] }) => d.job_id === id && d.type === "job.progress" && d.attempts.length > 0);
  assert.equal(waiting.attempts[0].status_code, null);
  assert.match(waiting.attempts[0].error, /no answer within 2000 ms/);

  for (const receiver of [good, flaky, silent]) assert.deepEqual(receiver.rejected, []);
});

test("a canceled job is announced as job.canceled", async () => {
  const submitted = await service.call("POST", "/v1/subtitles", key, { video_url: video });
  assert.equal((await service.call("POST", `/v1/jobs/${submitted.body.id}/cancel`, key)).status, 200);
  const received = await good.waitFor((r) => r.payload.data.id === submitted.body.id);
  assert.equal(received.payload.type, "job.canceled");
  assert.equal(received.payload.data.status, "canceled");
});

test("the API is down when the job completes: the delivery waits in the database and goes out once an API runs again", async () => {
  const submitted = await service.call("POST", "/v1/subtitles", key, { video_url: video });
  const id: string = submitted.body.id;
  // The only API stops; the worker finishes the job and commits its completion with no sender alive.
  await service.api.stop();
  const db = service.database.db;
  for (let row = await db.selectFrom("jobs").select("status").where("id", "=", id).executeTakeFirstOrThrow(); row.status !== "completed"; ) {
    assert.notEqual(row.status, "failed");
    await new Promise((resolve) => setTimeout(resolve, 200));
    row = await db.selectFrom("jobs").select("status").where("id", "=", id).executeTakeFirstOrThrow();
  }
  const queued = await db.selectFrom("webhook_deliveries").select(["type", "state", "attempts"]).where("job_id", "=", id).where("type", "=", "job.completed").execute();
  assert.equal(queued.length, 3, "one per subscribed endpoint, queued with the completion");
  assert.ok(queued.every((d) => d.state === "pending" && d.attempts === 0), JSON.stringify(queued));
  assert.ok(!good.received.some((r) => r.payload.data.id === id));

  const restarted = await startApiServer(service.env, service.database.url, pino({ level: "silent" }), { metrics: false });
  try {
    const delivered = await good.waitFor((r) => r.payload.type === "job.completed" && r.payload.data.id === id);
    assert.equal(delivered.payload.data.status, "completed");
    assert.match(String((delivered.payload.data as { video?: { url?: string } }).video?.url), new RegExp(`^${service.url}/v1/files/${id}/`), "links on the origin the job was submitted to");
  } finally {
    await restarted.stop();
  }
});
