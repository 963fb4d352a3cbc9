import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { JobWithMetadata, PgBoss } from "pg-boss";
import pino from "pino";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.ts";
import { QUEUES, type CaptionJobPayload } from "./catalog.ts";
import { assertRoleHandlers, MissingQueueHandler, workQueues, type WorkHandlers } from "./job-handlers.ts";
import { startQueueClient } from "./queue-client.ts";

// The catalogue decides what a process must handle and what reaches a handler: a role missing a
// handler does not start, and an entry whose payload breaks its queue's schema is failed in pg-boss
// without its handler ever running.

let database: TestDatabase;
let boss: PgBoss;
const lines: Record<string, unknown>[] = [];
const logger = pino({ level: "error" }, { write: (line: string) => void lines.push(JSON.parse(line)) });

before(async () => {
  database = await createTestDatabase();
  boss = await startQueueClient(database.url, { supervise: false, schedule: false }, { max: 4 }, pino({ level: "silent" }));
});
after(async () => {
  await boss.stop({ graceful: false, close: true });
  await database.dispose();
});

/** Handlers for every worker queue that record what they were given; `seen` resolves per queue on its first entry. */
function recordingHandlers() {
  const handled: Record<string, unknown[]> = {};
  const firsts = new Map<string, () => void>();
  const seen = (queue: string) => new Promise<void>((resolve) => firsts.set(queue, resolve));
  const record = (queue: string) => ({
    options: { pollingIntervalSeconds: 0.5 },
    async handle(job: JobWithMetadata<unknown>) {
      (handled[queue] ??= []).push(job.data);
      firsts.get(queue)?.();
    },
  });
  const handlers: WorkHandlers<"worker"> = {
    [QUEUES.captionJob]: record(QUEUES.captionJob),
    [QUEUES.captionJobDead]: record(QUEUES.captionJobDead),
    [QUEUES.expireFiles]: record(QUEUES.expireFiles),
    [QUEUES.preview]: record(QUEUES.preview),
  };
  return { handlers, handled, seen };
}

test("a worker role missing a handler is refused before it works any queue", async () => {
  const { handlers } = recordingHandlers();
  const { [QUEUES.preview]: _preview, ...withoutPreview } = handlers;
  const started: string[] = [];
  const watched = { work: ((...args: Parameters<PgBoss["work"]>) => (started.push(args[0]), boss.work(...args))) as PgBoss["work"], fail: boss.fail.bind(boss) };
  await assert.rejects(workQueues(watched, "worker", withoutPreview as never, logger), (error: Error) => {
    assert.ok(error instanceof MissingQueueHandler);
    assert.equal(error.message, "the worker role cannot start: no handler for queue caption-preview (shared/src/jobs/catalog.ts JOB_CATALOGUE)");
    return true;
  });
  assert.deepEqual(started, [], "no queue was worked");
});

test("a handler for another role's queue, or none for the API's, is refused too", () => {
  assert.throws(() => assertRoleHandlers("worker", { ...recordingHandlers().handlers, [QUEUES.webhookDelivery]: {} }), /a handler for webhook-delivery, which the catalogue gives another role/);
  assert.throws(() => assertRoleHandlers("api", {}), /the api role cannot start: no handler for queue webhook-delivery/);
  assert.doesNotThrow(() => assertRoleHandlers("api", { [QUEUES.webhookDelivery]: {} }));
});

test("an entry whose payload breaks its queue's schema is failed, logged, and never reaches a handler (the dead letter's included)", { timeout: 60_000 }, async () => {
  const { handlers, handled, seen } = recordingHandlers();
  const captionSeen = seen(QUEUES.captionJob);
  const deadSeen = seen(QUEUES.captionJobDead);
  // Sent before any worker runs, bad ones first: by the time a good one is handled, the bad ones before it were taken.
  const badCaption = await boss.send(QUEUES.captionJob, { job_id: 42 });
  const extraField = await boss.send(QUEUES.captionJob, { job_id: "job_a", unexpected: true });
  await boss.send(QUEUES.captionJob, { job_id: "job_good" } satisfies CaptionJobPayload);
  const badDead = await boss.send(QUEUES.captionJobDead, {});
  await boss.send(QUEUES.captionJobDead, { job_id: "job_dead" } satisfies CaptionJobPayload);
  await workQueues(boss, "worker", handlers, logger);
  await Promise.all([captionSeen, deadSeen]);
  await boss.offWork(QUEUES.captionJob, { wait: true });
  await boss.offWork(QUEUES.captionJobDead, { wait: true });

  assert.deepEqual(handled[QUEUES.captionJob], [{ job_id: "job_good" }]);
  assert.deepEqual(handled[QUEUES.captionJobDead], [{ job_id: "job_dead" }]);
  for (const [queue, id] of [[QUEUES.captionJob, badCaption], [QUEUES.captionJob, extraField], [QUEUES.captionJobDead, badDead]] as const) {
    const entry = await boss.getJobById(queue, id!);
    assert.ok(entry && ["retry", "failed"].includes(entry.state), `${queue} ${id} is ${entry?.state}`);
    assert.deepEqual(entry.output, { message: "payload does not match the job catalogue" });
  }
  const logged = lines.filter((line) => line.msg === "queue entry's payload does not match the catalogue; failed without running its handler");
  // pg-boss's retries of an entry fail the same way, each logged again (the dead-letter queue retries at once).
  assert.deepEqual([...new Set(logged.map((line) => `${line.queue} ${line.queue_entry_id} ${line.field}`))].sort(), [
    `${QUEUES.captionJob} ${badCaption} /job_id`,
    `${QUEUES.captionJob} ${extraField} /unexpected`,
    `${QUEUES.captionJobDead} ${badDead} /job_id`,
  ].sort());
});
