import { Type, type Static, type TSchema } from "@sinclair/typebox";
import type { PgBoss } from "pg-boss";
import { PreviewRequestSchema } from "../api/preview.ts";

/** One catalogue of queue names with typed payloads, shared by the API (producer) and the worker. */
export const QUEUES = {
  captionJob: "caption-job",
  /** Caption jobs whose attempts all failed or died with their worker; the worker fails them and releases the credit. */
  captionJobDead: "caption-job-dead",
  expireFiles: "expire-files",
  /** One attempt of one webhook delivery; the API processes send them (control-plane/src/services/webhook-sender.ts). */
  webhookDelivery: "webhook-delivery",
  /** One preview (POST /v1/previews) a request waits for; workers draw it and answer in the preview_results table. */
  preview: "caption-preview",
} as const;

export const CaptionJobPayloadSchema = Type.Object(
  {
    job_id: Type.String(),
    /** W3C trace context of the submitting request, so the worker's spans join its trace. */
    traceparent: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type CaptionJobPayload = Static<typeof CaptionJobPayloadSchema>;

export const WebhookDeliveryPayloadSchema = Type.Object(
  {
    delivery_id: Type.Integer(),
    /** Attempts the delivery had when this one was queued: a stale or repeated entry finds another count and does nothing. */
    attempts_before: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type WebhookDeliveryPayload = Static<typeof WebhookDeliveryPayloadSchema>;

export const PreviewPayloadSchema = Type.Object(
  {
    preview_id: Type.String(),
    account_id: Type.String(),
    /** Checked by the API, background included (the account's, completed, the right size). */
    request: PreviewRequestSchema,
    /** Epoch milliseconds (the API's clock) after which nobody waits for the answer: not started, or stopped. */
    deadline_ms: Type.Integer(),
  },
  { additionalProperties: false },
);
export type PreviewPayload = Static<typeof PreviewPayloadSchema>;

/** Workers NOTIFY a finished preview's id here, once its row is in preview_results. */
export const PREVIEW_RESULTS_CHANNEL = "caption_preview_results";
/**
 * The channel the jobs_record_event trigger notifies on every change of a job, with the job id as
 * payload: event streams and a running attempt's cancel watch wait on it.
 */
export const JOB_EVENTS_CHANNEL = "caption_job_events";
/** The channel the jobs_record_event trigger (and a disabled endpoint's event) notifies when webhook deliveries were queued. */
export const WEBHOOKS_CHANNEL = "caption_webhooks";

/** pg-boss lives in the same database, in its own schema. */
export const PGBOSS_SCHEMA = "pgboss";

/** A worker refreshes a running job's heartbeat, and looks for lapsed ones, this many times per heartbeat. */
export const HEARTBEAT_CHECKS = 6;

/**
 * Queue policy for caption jobs. A 600 s 1080p video takes minutes on a CPU worker; the expiry is a
 * backstop, the heartbeat is what notices a dead worker quickly so another one retries the job. A
 * deployment's JOB_HEARTBEAT_SECONDS and JOB_RETRY_DELAY_SECONDS replace the two at send time.
 */
export const CAPTION_QUEUE_OPTIONS = {
  expireInSeconds: 3600,
  heartbeatSeconds: 30,
  retryLimit: 3,
  retryDelay: 5,
  retryBackoff: true,
  deleteAfterSeconds: 7 * 24 * 3600,
  deadLetter: QUEUES.captionJobDead,
  // Creating a job NOTIFYs, so an idle worker (started with useListenNotify) picks it up at once
  // rather than at its next poll; polling stays as the backstop.
  notify: true,
} as const;

/**
 * Queue policy for webhook attempts. The retry schedule (hours) is the delivery row's, not pg-boss's:
 * pg-boss retries an attempt only when its sender died or the database failed under it, and an
 * attempt that outlives its expiry (a sender killed mid-request) is handed to another sender.
 */
export const WEBHOOK_QUEUE_OPTIONS = {
  expireInSeconds: 120,
  retryLimit: 5,
  retryDelay: 5,
  retryBackoff: true,
  deleteAfterSeconds: 24 * 3600,
} as const;

/**
 * A pending delivery whose attempt is this long overdue has lost its queue entry (deleted, or failed
 * for good after pg-boss's own retries, say through a long database outage): the API's relay queues a
 * new one. Ten minutes past the expiry, so a live entry (waiting, running or being retried) is seldom
 * doubled; a double is harmless anyway, since an entry whose attempt count is stale does nothing.
 */
export const WEBHOOK_OVERDUE_SECONDS = WEBHOOK_QUEUE_OPTIONS.expireInSeconds + 600;

/**
 * Queue policy for previews: short-lived, never retried (the request that waits for one gives up within
 * seconds), NOTIFYing so an idle worker starts at once; entries nobody took are dropped after a minute.
 */
export const PREVIEW_QUEUE_OPTIONS = {
  expireInSeconds: 30,
  retryLimit: 0,
  retentionSeconds: 60,
  deleteAfterSeconds: 60,
  notify: true,
} as const;

/** The processes that take work from the queues. */
export type ProcessRole = "api" | "worker";

/** Scheduled entries carry no data (pg-boss stores null). */
const NoPayloadSchema = Type.Union([Type.Null(), Type.Object({}, { additionalProperties: false })]);

/**
 * The job catalogue: per queue, its payload's schema (checked before any handler sees an entry), its
 * policy, and the process role that must handle it. Each role registers its handlers through
 * job-handlers.ts, which refuses to start a role that lacks one.
 */
export const JOB_CATALOGUE = {
  [QUEUES.captionJob]: { payload: CaptionJobPayloadSchema, options: CAPTION_QUEUE_OPTIONS, role: "worker" },
  [QUEUES.captionJobDead]: { payload: CaptionJobPayloadSchema, options: {}, role: "worker" },
  [QUEUES.expireFiles]: { payload: NoPayloadSchema, options: { retryLimit: 1 }, role: "worker" },
  [QUEUES.webhookDelivery]: { payload: WebhookDeliveryPayloadSchema, options: WEBHOOK_QUEUE_OPTIONS, role: "api" },
  [QUEUES.preview]: { payload: PreviewPayloadSchema, options: PREVIEW_QUEUE_OPTIONS, role: "worker" },
} as const satisfies Record<(typeof QUEUES)[keyof typeof QUEUES], { payload: TSchema; options: object; role: ProcessRole }>;

export type QueueName = keyof typeof JOB_CATALOGUE;
export type PayloadOf<Q extends QueueName> = Static<(typeof JOB_CATALOGUE)[Q]["payload"]>;
/** The queues a role must handle. */
export type QueuesOf<R extends ProcessRole> = { [Q in QueueName]: (typeof JOB_CATALOGUE)[Q]["role"] extends R ? Q : never }[QueueName];

/** Creates the queues with the catalogue's policies; API and workers both call it, whichever starts first. */
export async function ensureQueues(boss: Pick<PgBoss, "getQueues" | "createQueue" | "updateQueue">): Promise<void> {
  const deadLetters = new Set<string | undefined>(Object.values(JOB_CATALOGUE).map(({ options }) => ("deadLetter" in options ? options.deadLetter : undefined)));
  // Dead-letter queues first: the queues naming them need them.
  const names = (Object.keys(JOB_CATALOGUE) as QueueName[]).sort((a, b) => Number(deadLetters.has(b)) - Number(deadLetters.has(a)));
  const existing = new Map((await boss.getQueues(names)).map((queue) => [queue.name, queue]));
  for (const name of names) {
    const { options } = JOB_CATALOGUE[name];
    const queue = existing.get(name);
    if (!queue) await boss.createQueue(name, { ...options });
    // A queue created by an older release has no notify.
    else if ("notify" in options && options.notify && !queue.notify) await boss.updateQueue(name, { notify: true });
  }
}
