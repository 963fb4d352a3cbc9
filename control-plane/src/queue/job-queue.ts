import type { Logger } from "pino";
import { QUEUES, type CaptionJobPayload, type PayloadOf, type PreviewPayload, type QueuesOf, type WebhookDeliveryPayload } from "@caption/shared/jobs/catalog";
import { assertRoleHandlers, payloadCheck } from "@caption/shared/jobs/job-handlers";
import { startQueueClient } from "@caption/shared/jobs/queue-client";
import { pgBossAdapter, type ConnectionOptions, type DbOrTrx } from "@caption/shared/db/database";
import { CONNECTION_BUDGET } from "@caption/shared/db/connection-budget";
import { startInFlightPool, type InFlightPool, type PoolSource } from "./in-flight-pool.ts";

export interface JobQueue {
  /** Enqueues on the caller's transaction: the job row and its queue entry commit or roll back together. */
  enqueueCaptionJob(trx: DbOrTrx, payload: CaptionJobPayload): Promise<void>;
  /** Queues a preview for the workers (no transaction: the request waits for it at once). */
  enqueuePreview(payload: PreviewPayload): Promise<void>;
  /** Queues one webhook attempt, due at `startAfter`, on the caller's transaction. */
  enqueueWebhookAttempt(trx: DbOrTrx, payload: WebhookDeliveryPayload, startAfter: Date): Promise<void>;
  /**
   * Works each of the catalogue's API queues (webhook attempts) in this process until stop, refused unless
   * each has its handler: up to `concurrency` entries at once, each settled on its own, so an attempt
   * waiting for a receiver that never answers holds one slot and no other.
   */
  work(handlers: ApiQueueHandlers): Promise<void>;
  queuedCount(): Promise<number>;
  stop(): Promise<void>;
}

/** A queue the API works through its in-flight pool: how many entries at once, and the handler of each valid payload. */
export interface PoolHandler<P> {
  concurrency: number;
  handle(payload: P): Promise<void>;
}
export type ApiQueueHandlers = { [Q in QueuesOf<"api">]: PoolHandler<PayloadOf<Q>> };

/** A caption job's own policy where the deployment sets one (JOB_HEARTBEAT_SECONDS, JOB_RETRY_DELAY_SECONDS): the queue's otherwise. */
export interface CaptionJobTiming {
  heartbeatSeconds?: number;
  retryDelay?: number;
}

export async function startJobQueue(connectionString: string, connection: ConnectionOptions, logger: Logger, timing: CaptionJobTiming = {}): Promise<JobQueue> {
  // The API produces caption jobs and sends webhooks; maintenance and scheduling run in the workers.
  const boss = await startQueueClient(connectionString, { supervise: false, schedule: false }, { max: CONNECTION_BUDGET.api.queue, ...connection }, logger);
  const pools: InFlightPool[] = [];
  return {
    async enqueueCaptionJob(trx, payload) {
      await boss.send(QUEUES.captionJob, payload, { db: pgBossAdapter(trx), ...timing });
    },
    async enqueuePreview(payload) {
      await boss.send(QUEUES.preview, payload);
    },
    async enqueueWebhookAttempt(trx, payload, startAfter) {
      await boss.send(QUEUES.webhookDelivery, payload, { db: pgBossAdapter(trx), startAfter });
    },
    async work(handlers) {
      assertRoleHandlers("api", handlers);
      for (const [queue, { concurrency, handle }] of Object.entries(handlers) as [QueuesOf<"api">, PoolHandler<unknown>][]) {
        const valid = payloadCheck(queue, logger);
        const source: PoolSource<{ id: string; data: unknown }> = {
          fetch: async (limit) => (await boss.fetch<unknown>(queue, { batchSize: limit })).map((job) => ({ id: job.id, data: { id: job.id, data: job.data } })),
          complete: async (id) => void (await boss.complete(queue, id)),
          fail: async (id, message) => void (await boss.fail(queue, id, { message })),
        };
        pools.push(
          startInFlightPool(source, { concurrency, pollMs: 1000, logger }, async ({ id, data }) => {
            // Failed in pg-boss like any entry that could not run; its handler never sees it.
            if (!valid(id, data)) throw new Error("payload does not match the job catalogue");
            try {
              await handle(data);
            } catch (error) {
              logger.warn({ err: error, queue, queue_entry_id: id }, "queue entry could not be handled; it will be retried");
              throw error;
            }
          }),
        );
      }
    },
    async queuedCount() {
      const queue = await boss.getQueue(QUEUES.captionJob);
      return queue?.queuedCount ?? 0;
    },
    // Attempts in flight get a moment to finish; one cut off is expired and sent again by another process.
    async stop() {
      await Promise.all(pools.map((pool) => pool.stop(3000)));
      await boss.stop({ graceful: true, timeout: 3000, close: true });
    },
  };
}
