import type { Db } from "@caption/shared/db/database";
import type { Logger } from "pino";
import { claimDeliveriesToEnqueue, markEnqueued } from "../db/webhook-delivery-repository.ts";
import type { JobQueue } from "../queue/job-queue.ts";

/** The channel the jobs_record_event trigger notifies when it queued deliveries. */
export const WEBHOOKS_CHANNEL = "caption_webhooks";
const BATCH = 100;

/**
 * Hands new outbox rows to the queue: each is locked, queued (pg-boss, on the same transaction) and
 * marked in one commit, so a row is queued exactly once whichever API process gets it first.
 * Returns how many it handed over.
 */
export async function relayDeliveries(db: Db, queue: JobQueue): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows = await claimDeliveriesToEnqueue(trx, BATCH);
    for (const row of rows) {
      await queue.enqueueWebhookAttempt(trx, { delivery_id: row.id, attempts_before: row.attempts }, row.next_attempt_at ?? new Date());
    }
    await markEnqueued(trx, rows.map((row) => row.id));
    return rows.length;
  });
}

export interface WebhookRelay {
  /** A notification said there is something new: relay now. */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Relays at start (deliveries queued while no API ran), whenever woken, and every `sweepMs` in case
 * a notification was lost (the listener was reconnecting).
 */
export function startWebhookRelay(deps: { db: Db; queue: JobQueue; logger: Logger; sweepMs: number }): WebhookRelay {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const pass = async () => {
    do {
      again = false;
      try {
        while ((await relayDeliveries(deps.db, deps.queue)) === BATCH && !stopped);
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
  const timer = setInterval(wake, deps.sweepMs);
  timer.unref();
  wake();
  return {
    wake,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
