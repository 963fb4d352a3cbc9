import type { Db } from "@caption/shared/db/database";
import { WEBHOOK_OVERDUE_SECONDS } from "@caption/shared/jobs/catalog";
import type { Logger } from "pino";
import { claimDeliveriesToEnqueue, claimOverdueDeliveries, markDueAt, markEnqueued } from "../db/webhook-delivery-repository.ts";
import type { JobQueue } from "../queue/job-queue.ts";

/** The channel the jobs_record_event trigger notifies when it queued deliveries. */
export const WEBHOOKS_CHANNEL = "caption_webhooks";
const BATCH = 100;

/**
 * Hands new outbox rows to the queue: each is locked, queued (pg-boss, on the same transaction) and
 * marked in one commit, so a row is queued exactly once whichever API process gets it first.
 * Returns how many it handed over.
 */
async function relayDeliveries(db: Db, queue: JobQueue, now: () => Date): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows = await claimDeliveriesToEnqueue(trx, BATCH);
    for (const row of rows) {
      await queue.enqueueWebhookAttempt(trx, { delivery_id: row.id, attempts_before: row.attempts }, row.next_attempt_at ?? now());
    }
    await markEnqueued(trx, rows.map((row) => row.id));
    return rows.length;
  });
}

/**
 * Queues a new attempt, due now, for pending deliveries whose attempt is more than WEBHOOK_OVERDUE_SECONDS
 * late: their queue entry was lost or gave up, and without this they would stay pending for ever. Their
 * next_attempt_at becomes now, so each is re-queued at most once per WEBHOOK_OVERDUE_SECONDS. Should the
 * old entry still run, one of the two finds the attempt count moved on and does nothing.
 */
async function requeueOverdueDeliveries(db: Db, queue: JobQueue, now: Date): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows = await claimOverdueDeliveries(trx, new Date(now.getTime() - WEBHOOK_OVERDUE_SECONDS * 1000), BATCH);
    for (const row of rows) await queue.enqueueWebhookAttempt(trx, { delivery_id: row.id, attempts_before: row.attempts }, now);
    await markDueAt(trx, rows.map((row) => row.id), now);
    return rows.length;
  });
}

export interface WebhookRelay {
  /** A notification said there is something new: relay now. */
  wake(): void;
  stop(): Promise<void>;
}

export interface WebhookRelayDeps {
  db: Db;
  queue: JobQueue;
  logger: Logger;
  now: () => Date;
  /** How often to relay anyway, in case a notification was lost (the listener was reconnecting). */
  sweepMs: number;
  /** How often to look for overdue deliveries (default every minute). */
  requeueMs?: number;
}

/**
 * Relays at start (deliveries queued while no API ran), whenever woken, and every `sweepMs`; every
 * `requeueMs` it re-queues overdue deliveries.
 */
export function startWebhookRelay(deps: WebhookRelayDeps): WebhookRelay {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const pass = async () => {
    do {
      again = false;
      try {
        while ((await relayDeliveries(deps.db, deps.queue, deps.now)) === BATCH && !stopped);
      } catch (error) {
        deps.logger.warn({ err: error }, "webhook relay failed; retrying at the next sweep");
      }
    } while (again && !stopped);
  };
  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass().finally(() => (running = undefined));
  };

  let requeueing: Promise<void> | undefined;
  const requeue = () => {
    if (stopped || requeueing) return;
    requeueing = (async () => {
      try {
        let count: number;
        do {
          count = await requeueOverdueDeliveries(deps.db, deps.queue, deps.now());
          if (count > 0) deps.logger.warn({ count }, "webhook deliveries had lost their queue entries; queued again");
        } while (count === BATCH && !stopped);
      } catch (error) {
        deps.logger.warn({ err: error }, "re-queueing overdue webhook deliveries failed; retrying later");
      }
    })().finally(() => (requeueing = undefined));
  };

  const timers = [setInterval(wake, deps.sweepMs), setInterval(requeue, deps.requeueMs ?? 60_000)];
  for (const timer of timers) timer.unref();
  wake();
  return {
    wake,
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await Promise.all([running, requeueing]);
    },
  };
}
