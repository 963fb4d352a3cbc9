import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { PgBoss } from "pg-boss";
import pino from "pino";
import { CAPTION_QUEUE_OPTIONS, PGBOSS_SCHEMA, QUEUES, type WebhookDeliveryPayload } from "@caption/shared/jobs/catalog";
import { MissingQueueHandler } from "@caption/shared/jobs/job-handlers";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { startJobQueue, type JobQueue } from "./job-queue.ts";

// The API's queue (webhook attempts) goes through the job catalogue like the worker's: no start
// without its handler, and a payload that breaks the catalogue's schema is failed before the handler.

let database: TestDatabase;
let queue: JobQueue;
const lines: Record<string, unknown>[] = [];
const logger = pino({ level: "error" }, { write: (line: string) => void lines.push(JSON.parse(line)) });

before(async () => {
  database = await createTestDatabase();
  queue = await startJobQueue(database.url, {}, logger);
});
after(async () => {
  await queue.stop();
  await database.dispose();
});

test("the API's queues are not worked without a handler for each", async () => {
  await assert.rejects(queue.work({} as never), MissingQueueHandler);
});

test("a webhook attempt whose payload breaks the catalogue's schema is failed without reaching the sender", { timeout: 30_000 }, async () => {
  const boss = new PgBoss({ connectionString: database.url, schema: PGBOSS_SCHEMA, supervise: false, schedule: false });
  boss.on("error", () => undefined);
  await boss.start();
  try {
    const bad = await boss.send(QUEUES.webhookDelivery, { delivery_id: "1", attempts_before: 0 });
    await boss.send(QUEUES.webhookDelivery, { delivery_id: 7, attempts_before: 0 } satisfies WebhookDeliveryPayload);
    const handled: unknown[] = [];
    let good!: () => void;
    const goodSeen = new Promise<void>((resolve) => (good = resolve));
    await queue.work({
      [QUEUES.webhookDelivery]: {
        concurrency: 1,
        async handle(payload) {
          handled.push(payload);
          good();
        },
      },
    });
    await goodSeen;
    assert.deepEqual(handled, [{ delivery_id: 7, attempts_before: 0 }]);
    const entry = await boss.getJobById(QUEUES.webhookDelivery, bad!);
    assert.ok(entry && ["retry", "failed"].includes(entry.state), `the bad entry is ${entry?.state}`);
    assert.ok(lines.some((line) => line.queue === QUEUES.webhookDelivery && line.queue_entry_id === bad && line.field === "/delivery_id"));
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
});

test("caption jobs carry the deployment's heartbeat and retry delay, or the queue's policy without them", async () => {
  const timed = await startJobQueue(database.url, {}, logger, { heartbeatSeconds: 10, retryDelay: 1 });
  try {
    const payload = (id: string) => ({ job_id: id });
    await database.db.transaction().execute((trx) => timed.enqueueCaptionJob(trx, payload("job_timed")));
    await database.db.transaction().execute((trx) => queue.enqueueCaptionJob(trx, payload("job_default")));
    const rows = await sql<{ id: string; heartbeat_seconds: number; retry_delay: number }>`
      SELECT data->>'job_id' AS id, heartbeat_seconds, retry_delay FROM pgboss.job WHERE name = ${QUEUES.captionJob} ORDER BY id`.execute(database.db);
    assert.deepEqual(rows.rows.map((row) => [row.id, row.heartbeat_seconds, row.retry_delay]), [
      ["job_default", CAPTION_QUEUE_OPTIONS.heartbeatSeconds, CAPTION_QUEUE_OPTIONS.retryDelay],
      ["job_timed", 10, 1],
    ]);
  } finally {
    await timed.stop();
  }
});
