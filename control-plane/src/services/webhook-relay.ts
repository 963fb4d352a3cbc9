import type { Db } from "@caption/shared/db/database";
import { WEBHOOK_OVERDUE_SECONDS } from "@caption/shared/jobs/catalog";
import type { Logger } from "pino";
import { claimDeliveriesToEnqueue, claimOverdueDeliveries, lockRelay, markDueAt, markEnqueued, markFailed, nextDueAt } from "../db/webhook-delivery-repository.ts";
import type { JobQueue } from "../queue/job-queue.ts";
import { RETRY_WINDOW_MS } from "./webhook-retry-schedule.ts";

const BATCH = 100;

/**
 * Hands due outbox rows to the queue, fairly (see claimDeliveriesToEnqueue): chosen under a lock all
 * relays share, queued (pg-boss, on the same transaction) and marked in one commit, so a row is queued
 * once whichever API process gets it first. Returns how many it handed over.
 */
async function relayDeliveries(db: Db, queue: JobQueue, now: Date, capacity: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await lockRelay(trx);
    const rows = await claimDeliveriesToEnqueue(trx, now, BATCH, capacity);
    for (const row of rows) await queue.enqueueWebhookAttempt(trx, { delivery_id: row.id, attempts_before: row.attempts }, now);
    await markEnqueued(trx, rows.map((row) => row.id), now);
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
    // One whose event left the retry window is given up: a send that keeps failing before any attempt is never re-queued for ever.
    const expired = rows.filter((row) => now.getTime() - new Date(row.event_at).getTime() >= RETRY_WINDOW_MS);
    const again = rows.filter((row) => !expired.includes(row));
    for (const row of again) await queue.enqueueWebhookAttempt(trx, { delivery_id: row.id, attempts_before: row.attempts }, now);
    await markDueAt(trx, again.map((row) => row.id), now);
    await markFailed(trx, expired.map((row) => row.id));
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
  /** Attempts a sender process keeps in flight (WEBHOOK_CONCURRENCY): the places accounts share. */
  capacity: number;
  /** Least time from one pass's start to the next's (default RELAY_GAP_MS). */
  gapMs?: number;
  /** Waits out the rest of a gap (a timer; tests hold it). */
  pause?: (ms: number) => Promise<void>;
}

/**
 * Every job event and settled attempt wakes the relay, and a pass is a transaction of four statements
 * under a lock all relays share: one account submitting and canceling in a loop would otherwise make
 * the relay run back to back, at its pace. Wakes during a pass and this long after its start fold
 * into one pass, so the relay's work is bounded whatever the event rate; a delivery waits at most this
 * much longer (the senders' poll is a second).
 */
export const RELAY_GAP_MS = 100;

/**
 * Relays at start (deliveries queued while no API ran), whenever woken (a new delivery, an attempt
 * settled), when the next retry comes due, and every `sweepMs`; every `requeueMs` it re-queues overdue deliveries.
 */
export function startWebhookRelay(deps: WebhookRelayDeps): WebhookRelay {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let dueTimer: NodeJS.Timeout | undefined;
  const gapMs = deps.gapMs ?? RELAY_GAP_MS;
  const pause = deps.pause ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const pass = async () => {
    do {
      again = false;
      const started = performance.now();
      try {
        while ((await relayDeliveries(deps.db, deps.queue, deps.now(), deps.capacity)) === BATCH && !stopped);
        // A retry waits unqueued until due: wake then (the sweep is the backstop).
        const due = await nextDueAt(deps.db, deps.now());
        clearTimeout(dueTimer);
        if (due && !stopped) dueTimer = setTimeout(wake, Math.min(Math.max(due.getTime() - deps.now().getTime(), 0) + 5, deps.sweepMs)).unref();
      } catch (error) {
        deps.logger.warn({ err: error }, "webhook relay failed; retrying at the next sweep");
      }
      const wait = gapMs - (performance.now() - started);
      if (again && !stopped && wait > 0) await pause(wait);
    } while (again && !stopped);
  };
  function wake() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass().finally(() => (running = undefined));
  }

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
      clearTimeout(dueTimer);
      await Promise.all([running, requeueing]);
    },
  };
}
