import { Webhook } from "standardwebhooks";
import type { WebhookPayload } from "@caption/shared/api/webhook";
import type { Db } from "@caption/shared/db/database";
import type { WebhookDeliveryPayload } from "@caption/shared/jobs/catalog";
import type { Logger } from "pino";
import { fixPayload, loadDelivery, recordAttempt, type AttemptOutcome, type DeliveryToSend } from "../db/webhook-delivery-repository.ts";
import { loadJobRecord } from "../db/job-repository.ts";
import type { JobQueue } from "../queue/job-queue.ts";
import type { ResultLinks } from "../storage/result-links.ts";
import { presentJob, presentProgress } from "./job-presenter.ts";
import { postWebhook, type WebhookPostOptions } from "./webhook-post.ts";
import { retryDelayMs } from "./webhook-retry-schedule.ts";

export interface WebhookSenderDeps {
  db: Db;
  queue: JobQueue;
  resultLinks: ResultLinks;
  /** PUBLIC_BASE_URL; else the origin the job was submitted to; else `fallbackBaseUrl` (this API's own address). */
  publicBaseUrl: string | undefined;
  fallbackBaseUrl: string;
  post: WebhookPostOptions;
  /** WEBHOOK_RETRY_BASE_SECONDS in milliseconds. */
  retryBaseMs: number;
  logger: Logger;
  now: () => Date;
}

/**
 * The body of a delivery: `{ type, timestamp, data }` with `data` the Job as GET /v1/jobs/{id} shows
 * it now, except its `status` and `progress`, which are the event's: a job.progress delivery whose
 * first attempt comes after the job moved on (a receiver that was down, a backlog) must not announce
 * the later state. Fixed at the first attempt, so every retry sends (and signs) the same bytes.
 */
async function payloadOf(deps: WebhookSenderDeps, delivery: DeliveryToSend): Promise<string> {
  if (delivery.payload !== null) return delivery.payload;
  const row = await loadJobRecord(deps.db, delivery.job_id);
  if (!row) throw new Error(`job ${delivery.job_id} of delivery ${delivery.id} not found`);
  const baseUrl = deps.publicBaseUrl ?? row.base_url ?? deps.fallbackBaseUrl;
  const job = await presentJob(row, deps.resultLinks, baseUrl, deps.now());
  const data = { ...job, status: delivery.event_status, progress: presentProgress(delivery.event_progress) };
  const body: WebhookPayload = { type: delivery.type, timestamp: new Date(delivery.event_at).toISOString(), data };
  return fixPayload(deps.db, delivery.id, JSON.stringify(body));
}

/**
 * One attempt of one delivery (a queue entry): sign with the endpoint's secret (Standard Webhooks:
 * webhook-id is the event's id on every retry, webhook-timestamp this attempt's time), POST, record
 * the outcome and, after a failure, queue the next attempt in the same transaction. A queue entry
 * that finds the delivery moved on (settled, or attempted since) does nothing.
 */
export async function sendWebhookAttempt(deps: WebhookSenderDeps, job: WebhookDeliveryPayload): Promise<void> {
  const delivery = await loadDelivery(deps.db, job.delivery_id);
  if (!delivery || delivery.state !== "pending" || delivery.attempts !== job.attempts_before) return;
  const body = await payloadOf(deps, delivery);
  const attemptedAt = deps.now();
  const signature = new Webhook(delivery.secret).sign(delivery.event_id, attemptedAt, body);
  const headers = { "webhook-id": delivery.event_id, "webhook-timestamp": String(Math.floor(attemptedAt.getTime() / 1000)), "webhook-signature": signature };
  const started = performance.now();
  const result = await postWebhook(delivery.url, headers, body, deps.post, delivery.account_id);
  const attempt = delivery.attempts + 1;
  const delay = result.error === null ? null : retryDelayMs(attempt, deps.retryBaseMs, attemptedAt.getTime() - new Date(delivery.event_at).getTime());
  const outcome: AttemptOutcome = {
    attempt,
    attemptedAt,
    durationMs: Math.round(performance.now() - started),
    statusCode: result.statusCode,
    error: result.error,
    state: result.error === null ? "delivered" : delay === null ? "failed" : "pending",
    nextAttemptAt: delay === null ? null : new Date(deps.now().getTime() + delay),
  };
  const log = deps.logger.child({ job_id: delivery.job_id, delivery_id: delivery.id, event_id: delivery.event_id, type: delivery.type, attempt });
  await deps.db.transaction().execute(async (trx) => {
    if (!(await recordAttempt(trx, delivery.id, outcome))) return;
    if (outcome.nextAttemptAt) await deps.queue.enqueueWebhookAttempt(trx, { delivery_id: delivery.id, attempts_before: attempt }, outcome.nextAttemptAt);
  });
  if (outcome.state === "delivered") log.info({ status_code: result.statusCode, ms: outcome.durationMs }, "webhook delivered");
  else if (outcome.state === "pending") log.warn({ status_code: result.statusCode, error: result.error, next_attempt_at: outcome.nextAttemptAt }, "webhook attempt failed; will retry");
  else log.error({ status_code: result.statusCode, error: result.error }, "webhook delivery failed for good; no attempts left");
}
