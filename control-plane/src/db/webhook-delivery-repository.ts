import { sql } from "kysely";
import type { DbOrTrx } from "@caption/shared/db/database";
import type { JobStatus } from "@caption/shared/api/job";
import type { WebhookAttemptRow, WebhookDeliveryRow } from "@caption/shared/db/tables";

// The webhook outbox. Rows are created by the jobs_record_event trigger; the relay hands them to the
// queue, the sender records each attempt and decides what follows.

export type DeliveryToEnqueue = Pick<WebhookDeliveryRow, "id" | "attempts">;

/** Serialises the relays of every API process (for one transaction): the fair share below counts what is queued. */
export async function lockRelay(trx: DbOrTrx): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext('caption_webhook_relay'))`.execute(trx);
}

/**
 * Up to `limit` due deliveries to hand to the queue, fairly: per endpoint only the one that came due
 * first (a new delivery at its event's time, a retry at its retry's: events in order, a retry waiting
 * for its time holding back nothing), and none while another of its deliveries is queued (one in flight
 * per endpoint). Each endpoint costs one index step, however long its backlog.
 * Each account with deliveries queued or due gets an equal share of `capacity - 1` queue places
 * (at least one), counting those it has queued already, and accounts take turns (each one's first
 * before anyone's second): one place stays free, so an account that was quiet finds room at once
 * even when another's attempts all hang until their timeout. Call under lockRelay.
 */
export async function claimDeliveriesToEnqueue(trx: DbOrTrx, now: Date, limit: number, capacity: number): Promise<DeliveryToEnqueue[]> {
  const result = await sql<DeliveryToEnqueue>`
    WITH queued AS (
      SELECT d.endpoint_id, e.account_id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.state = 'pending' AND d.enqueued
    ), heads AS (
      -- Per endpoint, not per delivery: the first entry of webhook_deliveries_endpoint_due, due or not.
      SELECT h.id, h.attempts, h.next_attempt_at, e.account_id
      FROM webhook_endpoints e
      CROSS JOIN LATERAL (
        SELECT d.id, d.attempts, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.endpoint_id = e.id AND d.state = 'pending' AND NOT d.enqueued
        ORDER BY d.next_attempt_at, d.id LIMIT 1
      ) h
      WHERE e.disabled_at IS NULL AND h.next_attempt_at <= ${now} AND e.id NOT IN (SELECT endpoint_id FROM queued)
    ), share AS (
      SELECT GREATEST(1, (${capacity}::int - 1) / GREATEST(count(*), 1)) AS places
      FROM (SELECT account_id FROM queued UNION SELECT account_id FROM heads) AS active
    ), ranked AS (
      SELECT h.id, h.attempts, h.next_attempt_at,
        row_number() OVER (PARTITION BY h.account_id ORDER BY h.next_attempt_at, h.id)
          + (SELECT count(*) FROM queued q WHERE q.account_id = h.account_id) AS turn
      FROM heads h
    )
    SELECT id, attempts FROM ranked WHERE turn <= (SELECT places FROM share) ORDER BY turn, next_attempt_at, id LIMIT ${limit}`.execute(trx);
  return result.rows.map((row) => ({ id: Number(row.id), attempts: row.attempts }));
}

/** The deliveries were handed to the queue: their attempt is due now (the overdue look counts from here). */
export async function markEnqueued(trx: DbOrTrx, ids: readonly number[], now: Date): Promise<void> {
  if (ids.length > 0) await trx.updateTable("webhook_deliveries").set({ enqueued: true, next_attempt_at: now }).where("id", "in", ids).execute();
}

/** When the next delivery not yet queued comes due after `now` (a retry's wait), if any; due ones wait for a settled attempt's wake. */
export async function nextDueAt(db: DbOrTrx, now: Date): Promise<Date | null> {
  const row = await db
    .selectFrom("webhook_deliveries")
    .select((eb) => eb.fn.min("next_attempt_at").as("at"))
    .where("state", "=", "pending")
    .where("enqueued", "=", false)
    .where("next_attempt_at", ">", now)
    .executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}

/**
 * Up to `limit` pending deliveries already handed to the queue whose attempt was due before
 * `dueBefore`, locked; rows another relay holds are skipped.
 */
export async function claimOverdueDeliveries(
  trx: DbOrTrx,
  dueBefore: Date,
  limit: number,
): Promise<Pick<WebhookDeliveryRow, "id" | "attempts" | "event_at">[]> {
  return trx
    .selectFrom("webhook_deliveries")
    .select(["id", "attempts", "event_at"])
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

/** A delivery with its endpoint's URL, secret and account, and its job event's status and progress (null for an endpoint's own event). */
export type DeliveryToSend = WebhookDeliveryRow & {
  url: string;
  secret: string;
  account_id: string;
  event_status: JobStatus | null;
  event_progress: number | null;
};

/** The delivery with its endpoint's URL and secret and its event's status and progress; undefined when it (or its endpoint) is gone. */
export async function loadDelivery(db: DbOrTrx, id: number): Promise<DeliveryToSend | undefined> {
  return db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
    .leftJoin("job_events as ev", "ev.id", "d.job_event_id")
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
    .set({ attempts: outcome.attempt, state: outcome.state, next_attempt_at: outcome.nextAttemptAt, enqueued: false })
    .where("id", "=", id)
    .where("attempts", "=", outcome.attempt - 1)
    .where("state", "=", "pending")
    .executeTakeFirst();
  if (moved.numUpdatedRows === 0n) return false;
  // A retry waits unqueued: the relay hands it over once due, when its endpoint has nothing else in flight.
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

/**
 * A send that failed inside the service, before any attempt: tried again after `nextAttemptAt`, or given
 * up (failed) when that is null. Only if the delivery is still where the send found it.
 */
export async function recordInternalFailure(db: DbOrTrx, id: number, attemptsBefore: number, nextAttemptAt: Date | null): Promise<void> {
  await db
    .updateTable("webhook_deliveries")
    .set((eb) => ({
      internal_failures: eb("internal_failures", "+", 1),
      enqueued: false,
      next_attempt_at: nextAttemptAt,
      state: nextAttemptAt === null ? "failed" : "pending",
    }))
    .where("id", "=", id)
    .where("attempts", "=", attemptsBefore)
    .where("state", "=", "pending")
    .execute();
}

/** Gives up pending deliveries; the overdue look's answer for those whose event is past the retry window. */
export async function markFailed(db: DbOrTrx, ids: readonly number[]): Promise<void> {
  if (ids.length > 0) await db.updateTable("webhook_deliveries").set({ state: "failed", next_attempt_at: null }).where("id", "in", ids).execute();
}

/**
 * Forgets deliveries queued before `before` (their attempts go with them): settled ones, and pending
 * ones too, which by then can only be stuck (every delivery settles within about 27 hours).
 */
export async function deleteDeliveriesBefore(db: DbOrTrx, before: Date): Promise<void> {
  await db.deleteFrom("webhook_deliveries").where("created_at", "<", before).execute();
}
