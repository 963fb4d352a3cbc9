import { Webhook } from "standardwebhooks";
import type { WebhookPayload } from "@caption/shared/api/webhook";
import type { Db } from "@caption/shared/db/database";
import type { WebhookDeliveryPayload } from "@caption/shared/jobs/catalog";
import type { Logger } from "pino";
import { fixPayload, loadDelivery, recordAttempt, recordInternalFailure, type AttemptOutcome, type DeliveryToSend } from "../db/webhook-delivery-repository.ts";
import { loadJobRecord } from "../db/job-repository.ts";
import type { ResultLinks } from "../storage/result-links.ts";
import { presentJob, presentProgress } from "./job-presenter.ts";
import { recordEndpointHealth } from "./webhook-endpoint-health.ts";
import { postWebhook, type WebhookPostOptions } from "./webhook-post.ts";
import { retryDelayMs } from "./webhook-retry-schedule.ts";

export interface WebhookSenderDeps {
  db: Db;
  resultLinks: ResultLinks;
  /** PUBLIC_BASE_URL; else the origin the job was submitted to; else `fallbackBaseUrl` (this API's own address). */
  publicBaseUrl: string | undefined;
  fallbackBaseUrl: string;
  post: WebhookPostOptions;
  /** WEBHOOK_RETRY_BASE_SECONDS in milliseconds. */
  retryBaseMs: number;
  logger: Logger;
  now: () => Date;
  /** An attempt settled: its endpoint may take the next delivery (the relay's wake). */
  onSettled?: () => void;
}

/**
 * The body of a delivery: `{ type, timestamp, data }` with `data` the Job as GET /v1/jobs/{id} shows
 * it now, except its `status` and `progress`, which are the event's: a job.progress delivery whose
 * first attempt comes after the job moved on (a receiver that was down, a backlog) must not announce
 * the later state. Fixed at the first attempt, so every retry sends (and signs) the same bytes.
 */
async function payloadOf(deps: WebhookSenderDeps, delivery: DeliveryToSend): Promise<string> {
  // An endpoint's own event has its body from the start.
  if (delivery.payload !== null) return delivery.payload;
  if (delivery.job_id === null || delivery.event_status === null || delivery.type === "webhook_endpoint.disabled") {
    throw new Error(`delivery ${delivery.id} has neither a body nor a job event`);
  }
  const row = await loadJobRecord(deps.db, delivery.job_id);
  if (!row) throw new Error(`job ${delivery.job_id} of delivery ${delivery.id} not found`);
  const baseUrl = deps.publicBaseUrl ?? row.base_url ?? deps.fallbackBaseUrl;
  const job = await presentJob(row, deps.resultLinks, baseUrl, deps.now());
  const data = { ...job, status: delivery.event_status, progress: presentProgress(delivery.event_progress ?? 0) };
  const body: WebhookPayload = { type: delivery.type, timestamp: new Date(delivery.event_at).toISOString(), data };
  return fixPayload(deps.db, delivery.id, JSON.stringify(body));
}

/**
 * The send failed inside the service before any attempt (the job's row gone, a bug, the database
 * failing under us): tried again on the retry schedule while the event is younger than 24 h, then
 * given up, so such a delivery is never queued again for ever. A database that fails here too leaves
 * the queue entry to pg-boss's retries and the relay's overdue look, which gives up past the window too.
 */
async function internalFailure(deps: WebhookSenderDeps, delivery: DeliveryToSend, error: unknown): Promise<void> {
  const now = deps.now();
  const failures = delivery.attempts + delivery.internal_failures + 1;
  const delay = retryDelayMs(failures, deps.retryBaseMs, now.getTime() - new Date(delivery.event_at).getTime());
  const nextAttemptAt = delay === null ? null : new Date(now.getTime() + delay);
  await recordInternalFailure(deps.db, delivery.id, delivery.attempts, nextAttemptAt);
  const log = deps.logger.child({ job_id: delivery.job_id, delivery_id: delivery.id, event_id: delivery.event_id });
  if (nextAttemptAt) log.error({ err: error, next_attempt_at: nextAttemptAt }, "webhook send failed before its attempt; will retry");
  else log.error({ err: error }, "webhook send failed before its attempt; given up (24 h after the event)");
}

/** The body (fixed at the first attempt) and Standard Webhooks headers signed at this attempt's time. */
async function signedRequest(deps: WebhookSenderDeps, delivery: DeliveryToSend) {
  const body = await payloadOf(deps, delivery);
  const attemptedAt = deps.now();
  const signature = new Webhook(delivery.secret).sign(delivery.event_id, attemptedAt, body);
  const headers = { "webhook-id": delivery.event_id, "webhook-timestamp": String(Math.floor(attemptedAt.getTime() / 1000)), "webhook-signature": signature };
  return { body, headers, attemptedAt };
}

/**
 * One attempt of one delivery (a queue entry): sign with the endpoint's secret (Standard Webhooks:
 * webhook-id is the event's id on every retry, webhook-timestamp this attempt's time), POST, record
 * the outcome, with its endpoint's health (disabled after days of failures), in one transaction; a
 * retry waits for the relay to queue it when due. A queue entry that finds the delivery moved on
 * (settled, or attempted since) does nothing.
 */
export async function sendWebhookAttempt(deps: WebhookSenderDeps, job: WebhookDeliveryPayload): Promise<void> {
  const delivery = await loadDelivery(deps.db, job.delivery_id);
  if (!delivery || delivery.state !== "pending" || delivery.attempts !== job.attempts_before) return;
  let signed: { body: string; headers: Record<string, string>; attemptedAt: Date };
  try {
    signed = await signedRequest(deps, delivery);
  } catch (error) {
    await internalFailure(deps, delivery, error);
    deps.onSettled?.();
    return;
  }
  const { body, headers, attemptedAt } = signed;
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
  const disabled = await deps.db.transaction().execute(async (trx) => {
    if (!(await recordAttempt(trx, delivery.id, outcome))) return undefined;
    return recordEndpointHealth(trx, delivery.endpoint_id, outcome.state === "delivered", attemptedAt);
  });
  deps.onSettled?.();
  if (disabled) log.warn({ webhook_endpoint_id: disabled.id, reason: disabled.disabled_reason }, "webhook endpoint disabled");
  if (outcome.state === "delivered") log.info({ status_code: result.statusCode, ms: outcome.durationMs }, "webhook delivered");
  else if (outcome.state === "pending") log.warn({ status_code: result.statusCode, error: result.error, next_attempt_at: outcome.nextAttemptAt }, "webhook attempt failed; will retry");
  else log.error({ status_code: result.statusCode, error: result.error }, "webhook delivery failed for good; no attempts left");
}
