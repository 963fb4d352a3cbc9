import type { Logger } from "pino";
import { QUEUES, type CaptionJobPayload } from "@caption/shared/jobs/catalog";
import { startQueueClient } from "@caption/shared/jobs/queue-client";
import { pgBossAdapter, type ConnectionOptions, type DbOrTrx } from "@caption/shared/db/database";

export interface JobQueue {
  /** Enqueues on the caller's transaction: the job row and its queue entry commit or roll back together. */
  enqueueCaptionJob(trx: DbOrTrx, payload: CaptionJobPayload): Promise<void>;
  queuedCount(): Promise<number>;
  stop(): Promise<void>;
}

export async function startJobQueue(connectionString: string, connection: ConnectionOptions, logger: Logger): Promise<JobQueue> {
  // The API only produces; maintenance and scheduling run in the workers.
  const boss = await startQueueClient(connectionString, { supervise: false, schedule: false }, { max: 4, ...connection }, logger);
  return {
    async enqueueCaptionJob(trx, payload) {
      await boss.send(QUEUES.captionJob, payload, { db: pgBossAdapter(trx) });
    },
    async queuedCount() {
      const queue = await boss.getQueue(QUEUES.captionJob);
      return queue?.queuedCount ?? 0;
    },
    stop: () => boss.stop({ graceful: false, close: true }),
  };
}
