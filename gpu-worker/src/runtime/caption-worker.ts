import { hostname } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import path from "node:path";
import { PgBoss, type Job, type JobWithMetadata } from "pg-boss";
import type { Logger } from "pino";
import type { Env } from "@caption/shared/config/env";
import { createDatabase } from "@caption/shared/db/database";
import { Value } from "@sinclair/typebox/value";
import { CaptionJobPayloadSchema, ensureQueues, PGBOSS_SCHEMA, QUEUES, type CaptionJobPayload } from "@caption/shared/jobs/catalog";
import { loadSpeechEngine } from "../asr/engine-registry.ts";
import { detectHardwarePaths } from "../media/hardware-paths.ts";
import { processCaptionJob } from "../pipeline/process-caption-job.ts";
import { failJob } from "../pipeline/job-store.ts";
import { createResultStore } from "../storage/create-result-store.ts";
import { expireResultFiles } from "./expire-files.ts";
import { registerWorker } from "./worker-registry.ts";
import { workerLimitsFromEnv } from "./worker-limits-env.ts";

export interface CaptionWorker {
  /** Graceful: stop taking jobs, let running ones finish until the deadline, then abort them (they are retried elsewhere). Idempotent. */
  stop(options?: { graceSeconds?: number }): Promise<void>;
}

const RELEASE_TIMEOUT_MS = 10_000;

export async function startCaptionWorker(env: Env, databaseUrl: string, logger: Logger): Promise<CaptionWorker> {
  const workerId = `${hostname()}-${process.pid}-${Date.now().toString(36)}`;
  const log = logger.child({ worker_id: workerId });
  const db = createDatabase(databaseUrl, {
    max: env.WORKER_CONCURRENCY * 2 + 4,
    applicationName: "caption-worker",
    onIdleError: (error) => log.warn({ err: error }, "idle database connection lost"),
  });
  const engine = await loadSpeechEngine({
    engine: env.ASR_ENGINE,
    modelDir: env.ASR_MODEL_DIR ?? path.resolve(env.DATA_DIR, "models"),
    provider: env.ASR_PROVIDER,
    logger: log,
  });
  const { encoder, decoder } = await detectHardwarePaths({ binary: env.FFMPEG_PATH, logger: log, asrProvider: engine.provider });
  const store = createResultStore(env);
  const registration = await registerWorker(db, workerId, engine, log);
  log.info({ engine: engine.name, model: engine.model, languages: engine.languages, encoder: encoder.encoder, decoder: decoder.decoder, concurrency: env.WORKER_CONCURRENCY }, "worker starting");

  const boss = new PgBoss({ connectionString: databaseUrl, schema: PGBOSS_SCHEMA, monitorIntervalSeconds: 10, superviseIntervalSeconds: 10, max: 4 });
  boss.on("error", (error) => log.error({ err: error }, "pg-boss error"));
  await boss.start();
  await ensureQueues(boss);

  const pipelineDeps = {
    db,
    store,
    engine,
    encoder,
    decoder,
    logger: log,
    ffmpegPath: env.FFMPEG_PATH,
    ffprobePath: env.FFPROBE_PATH,
    allowPrivateAddresses: env.ALLOW_PRIVATE_VIDEO_URLS,
    workDir: path.resolve(env.DATA_DIR, "work"),
    limits: workerLimitsFromEnv(env),
  };

  // Attempts in flight, so a stop can wait for them and, past the deadline, abort them and let them
  // hand their jobs back before the database closes.
  const inFlight = new Set<Promise<void>>();
  const shutdown = new AbortController();

  await boss.work(
    QUEUES.captionJob,
    { localConcurrency: env.WORKER_CONCURRENCY, batchSize: 1, includeMetadata: true, pollingIntervalSeconds: 1 },
    async ([job]: JobWithMetadata<CaptionJobPayload>[]) => {
      if (!job) return;
      if (!Value.Check(CaptionJobPayloadSchema, job.data)) {
        log.error({ payload: job.data }, "malformed caption job payload; dropped");
        return;
      }
      const attempt = processCaptionJob(pipelineDeps, job.data.job_id, {
        signal: AbortSignal.any([job.signal, shutdown.signal]),
        finalAttempt: job.retryCount >= job.retryLimit,
        traceparent: job.data.traceparent,
      });
      inFlight.add(attempt);
      try {
        await attempt;
      } finally {
        inFlight.delete(attempt);
      }
    },
  );
  // Attempts that died with their worker (or ran out of retries) end here: fail them and release the credit.
  await boss.work(QUEUES.captionJobDead, { batchSize: 10 }, async (jobs: Job<CaptionJobPayload>[]) => {
    for (const job of jobs) {
      if (await failJob(db, job.data.job_id, "INTERNAL_ERROR", "processing was interrupted repeatedly; no charge was made")) {
        log.error({ job_id: job.data.job_id }, "job failed after exhausting retries");
      }
    }
  });
  await boss.schedule(QUEUES.expireFiles, "*/5 * * * *");
  await boss.work(QUEUES.expireFiles, async () => {
    await expireResultFiles(db, store, log);
  });

  let stopping: Promise<void> | undefined;
  return {
    stop: (options = {}) =>
      (stopping ??= (async () => {
        const graceSeconds = options.graceSeconds ?? env.SHUTDOWN_GRACE_SECONDS;
        log.info({ grace_seconds: graceSeconds, in_flight: inFlight.size }, "worker stopping");
        await boss.offWork(QUEUES.captionJob, { wait: false });
        const settled = Promise.allSettled([...inFlight]);
        const finished = await settleWithin(settled, graceSeconds * 1000);
        if (!finished) {
          log.warn({ in_flight: inFlight.size }, "grace period over; releasing running jobs for retry");
          shutdown.abort(new Error("worker shutting down"));
          // Aborted attempts requeue their job and fail their queue entry, so the retry starts promptly.
          await settleWithin(settled, RELEASE_TIMEOUT_MS);
        }
        await boss.stop({ graceful: true, timeout: 2000, close: true });
        await registration.unregister().catch((error: unknown) => log.warn({ err: error }, "unregister failed"));
        await engine.close();
        await db.destroy();
        log.info("worker stopped");
      })()),
  };
}

/** True when `promise` settles within `ms`; the timer never outlives the call. */
async function settleWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  try {
    return await Promise.race([promise.then(() => true), delay(ms, false, { signal: timer.signal })]);
  } finally {
    timer.abort();
  }
}
