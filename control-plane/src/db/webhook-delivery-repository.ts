import type { DbOrTrx } from "@caption/shared/db/database";
import type { JobStatus } from "@caption/shared/api/job";
import type { WebhookAttemptRow, WebhookDeliveryRow } from "@caption/shared/db/tables";

// The webhook outbox. Rows are created by the jobs_record_event trigger; the relay hands them to the
// queue, the sender records each attempt and decides what follows.

/** Up to `limit` deliveries not yet handed to the queue, locked; rows another relay holds are skipped. */
export async function claimDeliveriesToEnqueue(trx: DbOrTrx, limit: number): Promise<Pick<WebhookDeliveryRow, "id" | "attempts" | "next_attempt_at">[]> {
  return trx
    .selectFrom("webhook_deliveries")
    .select(["id", "attempts", "next_attempt_at"])
    .where("state", "=", "pending")
    .where("enqueued", "=", false)
    .orderBy("id")
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function markEnqueued(trx: DbOrTrx, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await trx.updateTable("webhook_deliveries").set({ enqueued: true }).where("id", "in", ids).execute();
}

/**
 * Up to `limit` pending deliveries already handed to the queue whose attempt was due before
 * `dueBefore`, locked; rows another relay holds are skipped.
 */
export async function claimOverdueDeliveries(trx: DbOrTrx, dueBefore: Date, limit: number): Promise<Pick<WebhookDeliveryRow, "id" | "attempts">[]> {
  return trx
    .selectFrom("webhook_deliveries")
    .select(["id", "attempts"])
    .where("state", "=", "pending")
    .where("enqueued", "=", true)
    .where("next_attempt_at", "<", dueBefore)
    .orderBy("next_attempt_at")
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** Records that the deliveries' next attempt is due at `dueAt` (a fresh queue entry was made for it). */
export async function markDueAt(trx: DbOrTrx, ids: readonly number[], dueAt: Date): Promise<void> {
  if (ids.length > 0) await trx.updateTable("webhook_deliveries").set({ next_attempt_at: dueAt }).where("id", "in", ids).execute();
}

export type DeliveryToSend = WebhookDeliveryRow & { url: string; secret: string; account_id: string; event_status: JobStatus; event_progress: number };

/** The delivery with its endpoint's URL and secret and its event's status and progress; undefined when it (or its endpoint) is gone. */
export async function loadDelivery(db: DbOrTrx, id: number): Promise<DeliveryToSend | undefined> {
  return db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
    .innerJoin("job_events as ev", "ev.id", "d.job_event_id")
    .selectAll("d")
    .select(["e.url", "e.secret", "e.account_id", "ev.status as event_status", "ev.progress as event_progress"])
    .where("d.id", "=", id)
    .executeTakeFirst();
}

/** Fixes the body at the first attempt; a body already fixed (by a racing attempt) wins and is returned. */
export async function fixPayload(db: DbOrTrx, id: number, payload: string): Promise<string> {
  const fixedNow = await db.updateTable("webhook_deliveries").set({ payload }).where("id", "=", id).where("payload", "is", null).returning("id").executeTakeFirst();
  if (fixedNow) return payload;
  const row = await db.selectFrom("webhook_deliveries").select("payload").where("id", "=", id).executeTakeFirstOrThrow();
  return row.payload ?? payload;
}

export interface AttemptOutcome {
  attempt: number;
  attemptedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  /** What the delivery becomes: delivered, failed for good, or pending until `nextAttemptAt`. */
  state: "delivered" | "failed" | "pending";
  nextAttemptAt: Date | null;
}

/**
 * Records attempt number `outcome.attempt` and moves the delivery on, only if the delivery still has
 * the attempts it had before (a repeated queue entry records nothing). False when it did not.
 */
export async function recordAttempt(trx: DbOrTrx, id: number, outcome: AttemptOutcome): Promise<boolean> {
  const moved = await trx
    .updateTable("webhook_deliveries")
    .set({ attempts: outcome.attempt, state: outcome.state, next_attempt_at: outcome.nextAttemptAt })
    .where("id", "=", id)
    .where("attempts", "=", outcome.attempt - 1)
    .where("state", "=", "pending")
    .executeTakeFirst();
  if (moved.numUpdatedRows === 0n) return false;
  await trx
    .insertInto("webhook_attempts")
    .values({
      delivery_id: id,
      attempt: outcome.attempt,
      attempted_at: outcome.attemptedAt,
      duration_ms: outcome.durationMs,
      status_code: outcome.statusCode,
      error: outcome.error,
    })
    .execute();
  return true;
}

/** The endpoint's `limit` most recent deliveries (newest first) with their attempts. */
export async function recentDeliveries(
  db: DbOrTrx,
  endpointId: string,
  limit: number,
): Promise<{ delivery: WebhookDeliveryRow; attempts: WebhookAttemptRow[] }[]> {
  const deliveries = await db.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", endpointId).orderBy("id", "desc").limit(limit).execute();
  if (deliveries.length === 0) return [];
  const attempts = await db
    .selectFrom("webhook_attempts")
    .selectAll()
    .where("delivery_id", "in", deliveries.map((d) => d.id))
    .orderBy("delivery_id")
    .orderBy("attempt")
    .execute();
  return deliveries.map((delivery) => ({ delivery, attempts: attempts.filter((a) => a.delivery_id === delivery.id) }));
}

/** Forgets delivered and abandoned deliveries older than `before` (their attempts go with them). */
export async function deleteSettledDeliveriesBefore(db: DbOrTrx, before: Date): Promise<void> {
  await db.deleteFrom("webhook_deliveries").where("state", "<>", "pending").where("created_at", "<", before).execute();
}
