import type { Db } from "@caption/shared/db/database";
import { claimDeliveriesToEnqueue, lockRelay, nextDueAt } from "../db/webhook-delivery-repository.ts";

/**
 * One relay hand-over's reads, as a pass makes them (the shared lock, the fair choice of due deliveries,
 * the next retry's time), in a transaction rolled back: the outbox stays as it was, so passes can be timed
 * one after another over the same backlog. Returns how many deliveries the pass would have handed over.
 */
export async function dryRelayHandOver(db: Db, now: Date, capacity: number): Promise<number> {
  let chosen = 0;
  await db
    .transaction()
    .execute(async (trx) => {
      await lockRelay(trx);
      chosen = (await claimDeliveriesToEnqueue(trx, now, 100, capacity)).length;
      await nextDueAt(trx, now);
      throw ROLLBACK;
    })
    .catch((error: unknown) => {
      if (error !== ROLLBACK) throw error;
    });
  return chosen;
}

const ROLLBACK = new Error("roll back the dry hand-over");
