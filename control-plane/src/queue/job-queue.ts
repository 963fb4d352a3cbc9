import type { Job, JobResult } from "pg-boss";
import type { Logger } from "pino";
import { Value } from "@sinclair/typebox/value";
import { QUEUES, WebhookDeliveryPayloadSchema, type CaptionJobPayload, type WebhookDeliveryPayload } from "@caption/shared/jobs/catalog";
import { startQueueClient } from "@caption/shared/jobs/queue-client";
import { pgBossAdapter, type ConnectionOptions, type DbOrTrx } from "@caption/shared/db/database";

export interface JobQueue {
  /** Enqueues on the caller's transaction: the job row and its queue entry commit or roll back together. */
  enqueueCaptionJob(trx: DbOrTrx, payload: CaptionJobPayload): Promise<void>;
  /** Queues one webhook attempt, due at `startAfter`, on the caller's transaction. */
  enqueueWebhookAttempt(trx: DbOrTrx, payload: WebhookDeliveryPayload, startAfter: Date): Promise<void>;
  /** Sends webhook attempts in this process, `concurrency` at a time, until stop. */
  workWebhookAttempts(concurrency: number, handler: (payload: WebhookDeliveryPayload) => Promise<void>): Promise<void>;
  queuedCount(): Promise<number>;
  stop(): Promise<void>;
}

export async function startJobQueue(connectionString: string, connection: ConnectionOptions, logger: Logger): Promise<JobQueue> {
  // The API produces caption jobs and sends webhooks; maintenance and scheduling run in the workers.
  const boss = await startQueueClient(connectionString, { supervise: false, schedule: false }, { max: 4, ...connection }, logger);
  return {
    async enqueueCaptionJob(trx, payload) {
      await boss.send(QUEUES.captionJob, payload, { db: pgBossAdapter(trx) });
    },
    async enqueueWebhookAttempt(trx, payload, startAfter) {
      await boss.send(QUEUES.webhookDelivery, payload, { db: pgBossAdapter(trx), startAfter });
    },
    async workWebhookAttempts(concurrency, handler) {
      // One poll a second fetches up to `concurrency` attempts and sends them side by side; each is
      // settled on its own, so one that fails (the database went away) is retried alone.
      const options = { batchSize: concurrency, pollingIntervalSeconds: 1, perJobResults: true } as const;
      await boss.work(QUEUES.webhookDelivery, options, async (jobs: Job<WebhookDeliveryPayload>[]): Promise<JobResult[]> =>
        Promise.all(
          jobs.map(async (job): Promise<JobResult> => {
            if (!Value.Check(WebhookDeliveryPayloadSchema, job.data)) {
              logger.error({ payload: job.data }, "malformed webhook attempt payload; dropped");
              return { id: job.id, status: "completed" };
            }
            try {
              await handler(job.data);
              return { id: job.id, status: "completed" };
            } catch (error) {
              logger.warn({ err: error, delivery_id: job.data.delivery_id }, "webhook attempt could not be recorded; it will be retried");
              return { id: job.id, status: "failed", output: { message: (error as Error).message } };
            }
          }),
        ),
      );
    },
    async queuedCount() {
      const queue = await boss.getQueue(QUEUES.captionJob);
      return queue?.queuedCount ?? 0;
    },
    // Attempts in flight get a moment to finish; one cut off is expired and sent again by another process.
    stop: () => boss.stop({ graceful: true, timeout: 3000, close: true }),
  };
}
