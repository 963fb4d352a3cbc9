import { metrics, type BatchObservableCallback } from "@opentelemetry/api";
import { sql } from "kysely";
import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import { METER_NAME } from "@caption/shared/telemetry/caption-metrics";

/**
 * `caption.queue.depth` and `caption.queue.oldest_age`, read from the jobs table when metrics are
 * collected (a scrape or an OTLP export), so they are exact at that moment. Returns the unregister.
 */
export function observeQueue(db: Db, logger: Logger): () => void {
  const meter = metrics.getMeter(METER_NAME);
  const depth = meter.createObservableGauge("caption.queue.depth", { description: "Jobs waiting for a worker", unit: "{job}" });
  const oldestAge = meter.createObservableGauge("caption.queue.oldest_age", { description: "Age of the oldest job waiting for a worker", unit: "s" });
  const observe: BatchObservableCallback = async (result) => {
    try {
      const row = await db
        .selectFrom("jobs")
        .select([sql<number>`count(*)::int`.as("queued"), sql<number | null>`extract(epoch FROM now() - min(created_at))::float8`.as("age")])
        .where("status", "=", "queued")
        .executeTakeFirstOrThrow();
      result.observe(depth, row.queued);
      result.observe(oldestAge, row.age ?? 0);
    } catch (error) {
      // A scrape during a database outage reports no value rather than failing the whole exposition.
      logger.warn({ err: error }, "queue gauges unavailable");
    }
  };
  meter.addBatchObservableCallback(observe, [depth, oldestAge]);
  return () => meter.removeBatchObservableCallback(observe, [depth, oldestAge]);
}
