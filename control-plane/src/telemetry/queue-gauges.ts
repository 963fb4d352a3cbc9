import { metrics, type BatchObservableCallback } from "@opentelemetry/api";
import { sql } from "kysely";
import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import { METER_NAME } from "@caption/shared/telemetry/caption-metrics";

/**
 * `caption.queue.depth` and `caption.queue.oldest_age`, read from the jobs table when metrics are
 * collected (a scrape or an OTLP export), so they are exact at that moment; the webhook backlog,
 * `caption.webhooks.due` and `caption.webhooks.oldest_due_age`; and `caption.database.up`, 0 when that
 * read failed (the other gauges then keep the values they last had). Returns the unregister.
 */
export function observeQueue(db: Db, logger: Logger): () => void {
  const meter = metrics.getMeter(METER_NAME);
  const depth = meter.createObservableGauge("caption.queue.depth", { description: "Jobs waiting for a worker", unit: "{job}" });
  const oldestAge = meter.createObservableGauge("caption.queue.oldest_age", { description: "Age of the oldest job waiting for a worker", unit: "s" });
  const webhooksDue = meter.createObservableGauge("caption.webhooks.due", { description: "Webhook deliveries whose attempt is due and not yet made", unit: "{delivery}" });
  const webhooksOldestDue = meter.createObservableGauge("caption.webhooks.oldest_due_age", {
    description: "How long the longest-waiting due webhook delivery has been due",
    unit: "s",
  });
  const databaseUp = meter.createObservableGauge("caption.database.up", { description: "1 when this process could read the database at this collection, else 0" });
  const observe: BatchObservableCallback = async (result) => {
    try {
      const [jobs, webhooks] = await Promise.all([
        db
          .selectFrom("jobs")
          .select([sql<number>`count(*)::int`.as("queued"), sql<number | null>`extract(epoch FROM now() - min(created_at))::float8`.as("age")])
          .where("status", "=", "queued")
          .executeTakeFirstOrThrow(),
        webhookBacklog(db),
      ]);
      result.observe(depth, jobs.queued);
      result.observe(oldestAge, jobs.age ?? 0);
      result.observe(webhooksDue, webhooks.due);
      result.observe(webhooksOldestDue, webhooks.age ?? 0);
      result.observe(databaseUp, 1);
    } catch (error) {
      // A scrape during a database outage still answers, and says so.
      result.observe(databaseUp, 0);
      logger.warn({ err: error }, "queue gauges unavailable");
    }
  };
  const instruments = [depth, oldestAge, webhooksDue, webhooksOldestDue, databaseUp];
  meter.addBatchObservableCallback(observe, instruments);
  return () => meter.removeBatchObservableCallback(observe, instruments);
}

/**
 * Deliveries the service owes now, and how long the longest-waiting has been due: those handed to the
 * queue (due since then: waiting for an API process, or their attempt running), and each enabled
 * endpoint's head while it is due and nothing of that endpoint is queued (what the relay hands over
 * next). A receiver in its retry wait owes nothing, nor do the deliveries queued behind an endpoint's
 * first (one in flight per endpoint): a customer's failing receiver does not look like a backlog.
 * The head is taken as the relay takes it (claimDeliveriesToEnqueue): the first entry of
 * webhook_deliveries_endpoint_due, one index step per endpoint at every scrape, however long its backlog.
 */
export async function webhookBacklog(db: Db): Promise<{ due: number; age: number | null }> {
  const { rows } = await sql<{ due: number; age: number | null }>`
    WITH owed AS (
      SELECT d.next_attempt_at FROM webhook_deliveries d WHERE d.state = 'pending' AND d.enqueued
      UNION ALL
      SELECT h.next_attempt_at FROM webhook_endpoints e
      CROSS JOIN LATERAL (
        SELECT d.next_attempt_at FROM webhook_deliveries d
        WHERE d.endpoint_id = e.id AND d.state = 'pending' AND NOT d.enqueued
        ORDER BY d.next_attempt_at, d.id LIMIT 1
      ) h
      WHERE e.disabled_at IS NULL AND h.next_attempt_at <= now()
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries q WHERE q.endpoint_id = e.id AND q.state = 'pending' AND q.enqueued)
    )
    SELECT count(*)::int AS due, extract(epoch FROM now() - min(next_attempt_at))::float8 AS age FROM owed`.execute(db);
  return rows[0] ?? { due: 0, age: null };
}
