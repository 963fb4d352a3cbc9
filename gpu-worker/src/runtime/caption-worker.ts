import { hostname } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import path from "node:path";
import type { Logger } from "pino";
import type { Env } from "@caption/shared/config/env";
import { connectionOptionsFromEnv, createDatabase } from "@caption/shared/db/database";
import { CONNECTION_BUDGET } from "@caption/shared/db/connection-budget";
import { retryWhileDatabaseUnavailable, waitForDatabase } from "@caption/shared/db/database-retry";
import { assertMigrated } from "@caption/shared/db/migrator";
import { startNotificationListener } from "@caption/shared/db/notification-listener";
import { HEARTBEAT_CHECKS, JOB_EVENTS_CHANNEL, QUEUES } from "@caption/shared/jobs/catalog";
import { workQueues } from "@caption/shared/jobs/job-handlers";
import { startQueueClient } from "@caption/shared/jobs/queue-client";
import { realClock } from "@caption/shared/time/clock";
import { loadSpeechEngine } from "../asr/engine-registry.ts";
import { modelFolder } from "../asr/model-folder.ts";
import { speechDetectors } from "../asr/speech-detectors.ts";
import { detectHardwarePaths } from "../media/hardware-paths.ts";
import { processJob } from "../pipeline/job-attempt.ts";
import { failJob } from "@caption/shared/jobs/job-lifecycle";
import { createResultStore } from "../storage/create-result-store.ts";
import { expireResultFiles } from "./expire-files.ts";
import { jobChangesFrom } from "./job-changes.ts";
import { previewHandler } from "./preview-worker.ts";
import { claimScratchSpace } from "./scratch-space.ts";
import { registerWorker } from "./worker-registry.ts";
import { workerLimitsFromEnv } from "./worker-limits-env.ts";

export interface CaptionWorker {
  /** Graceful: stop taking jobs, let running ones finish until the deadline, then abort them (they are retried elsewhere). Idempotent. */
  stop(options?: { graceSeconds?: number }): Promise<void>;
}

const RELEASE_TIMEOUT_MS = 10_000;
const GIVE_UP_TIMEOUT_MS = 2000;

export async function startCaptionWorker(env: Env, databaseUrl: string, logger: Logger): Promise<CaptionWorker> {
  const workerId = `${hostname()}-${process.pid}-${Date.now().toString(36)}`;
  const log = logger.child({ worker_id: workerId });
  const db = createDatabase(databaseUrl, {
    max: CONNECTION_BUDGET.worker.pool(env.WORKER_CONCURRENCY),
    applicationName: "caption-worker",
    ...connectionOptionsFromEnv(env),
    onConnectionLost: (error) => log.warn({ err: error }, "database connection lost"),
  });
  const scratch = await claimScratchSpace(path.resolve(env.DATA_DIR, "work"), workerId, log);
  const engine = await loadSpeechEngine({
    engine: env.ASR_ENGINE,
    modelDir: modelFolder(env),
    provider: env.ASR_PROVIDER,
    logger: log,
  });
  // Built now, one per job slot, so no job builds one while its cancel may be arriving (asr/speech-detectors.ts).
  const detectors = speechDetectors();
  await detectors.prepare(env.WORKER_CONCURRENCY).catch(async (error: unknown) => {
    await Promise.allSettled([engine.close(), db.destroy(), scratch.close()]);
    throw error;
  });
  const { encoder, decoder } = await detectHardwarePaths({ binary: env.FFMPEG_PATH, logger: log, asrProvider: engine.provider });
  const store = createResultStore(env);
  const wait = { timeoutSeconds: env.DATABASE_STARTUP_TIMEOUT_SECONDS, logger: log };
  // How pg-boss notices a dead worker: a running job's heartbeat (JOB_HEARTBEAT_SECONDS, 30 s) is refreshed
  // and looked for lapsed a sixth of it apart (5 s). See docs/jobs.md "Job lifecycle" for the retry this gives.
  const superviseSeconds = Math.max(1, Math.round(env.JOB_HEARTBEAT_SECONDS / HEARTBEAT_CHECKS));
  const connect = async () => {
    // A worker never migrates; one that starts before the API has must wait for it as for an outage.
    const registration = await waitForDatabase(async () => {
      await assertMigrated(db);
      return registerWorker(db, workerId, engine, log);
    }, wait);
    // LISTEN/NOTIFY wakes an idle worker the moment a job is queued; the poll stays every second, as
    // without it, for where notifications cannot arrive (a PgBouncer in transaction mode).
    const bossOptions = { monitorIntervalSeconds: superviseSeconds, superviseIntervalSeconds: superviseSeconds, useListenNotify: true };
    const boss = await waitForDatabase(
      () =>
        startQueueClient(databaseUrl, bossOptions, { max: CONNECTION_BUDGET.worker.queue, connectTimeoutSeconds: env.DATABASE_CONNECT_TIMEOUT_SECONDS }, log),
      wait,
    );
    return { registration, boss };
  };
  const { registration, boss } = await connect().catch(async (error: unknown) => {
    await Promise.allSettled([engine.close(), db.destroy(), scratch.close()]);
    throw error;
  });
  log.info({ engine: engine.name, model: engine.model, languages: engine.languages, speech_detectors: detectors.built, encoder: encoder.encoder, decoder: decoder.decoder, concurrency: env.WORKER_CONCURRENCY }, "worker starting");

  // A running attempt hears of its job's cancel through the jobs trigger's NOTIFY, on one LISTEN connection
  // for the process (it reconnects on its own, and a reconnection makes every watch read again).
  const listener = startNotificationListener(databaseUrl, {
    channels: [JOB_EVENTS_CHANNEL],
    connectTimeoutSeconds: env.DATABASE_CONNECT_TIMEOUT_SECONDS,
    logger: log,
  });
  // Ends the waits of attempts whose outcome cannot be recorded while the database is away (see stop).
  const stopWaiting = new AbortController();
  const pipelineDeps = {
    db,
    store,
    engine,
    speechDetectors: detectors,
    encoder,
    decoder,
    logger: log,
    ffmpegPath: env.FFMPEG_PATH,
    ffprobePath: env.FFPROBE_PATH,
    allowPrivateAddresses: env.ALLOW_PRIVATE_VIDEO_URLS,
    workDir: scratch.dir,
    limits: workerLimitsFromEnv(env),
    clock: realClock,
    jobChanges: jobChangesFrom(listener),
    stopWaiting: stopWaiting.signal,
  };

  // Attempts in flight, so a stop can wait for them and, past the deadline, abort them and let them
  // hand their jobs back before the database closes.
  const inFlight = new Set<Promise<void>>();
  const shutdown = new AbortController();

  // The catalogue's worker queues, each with its handler; start-up stops here if one is missing.
  await workQueues(boss, "worker", {
    [QUEUES.captionJob]: {
      options: {
        localConcurrency: env.WORKER_CONCURRENCY,
        batchSize: 1,
        pollingIntervalSeconds: 1,
        notifyPollingIntervalSeconds: 1,
        heartbeatRefreshSeconds: env.JOB_HEARTBEAT_SECONDS / HEARTBEAT_CHECKS,
      },
      async handle(job) {
        const attempt = processJob(pipelineDeps, job.data.job_id, {
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
    },
    // Attempts that died with their worker (or ran out of retries) end here: fail them and release the credit.
    [QUEUES.captionJobDead]: {
      options: { batchSize: 10 },
      async handle(job) {
        const fail = () => failJob(db, job.data.job_id, "INTERNAL_ERROR", "processing was interrupted repeatedly; no charge was made");
        if (await retryWhileDatabaseUnavailable(fail, { signal: stopWaiting.signal })) {
          log.error({ job_id: job.data.job_id }, "job failed after exhausting retries");
        }
      },
    },
    [QUEUES.preview]: previewHandler({ db, store, scratchDir: scratch.dir, ffmpegPath: env.FFMPEG_PATH, ffprobePath: env.FFPROBE_PATH, logger: log }),
    [QUEUES.expireFiles]: {
      async handle() {
        await expireResultFiles(db, store, log);
      },
    },
  }, log);
  await boss.schedule(QUEUES.expireFiles, "*/5 * * * *");

  let stopping: Promise<void> | undefined;
  return {
    stop: (options = {}) =>
      (stopping ??= (async () => {
        const graceSeconds = options.graceSeconds ?? env.SHUTDOWN_GRACE_SECONDS;
        log.info({ grace_seconds: graceSeconds, in_flight: inFlight.size }, "worker stopping");
        await boss.offWork(QUEUES.captionJob, { wait: false });
        await boss.offWork(QUEUES.preview, { wait: false });
        const settled = Promise.allSettled([...inFlight]);
        const finished = await settleWithin(settled, graceSeconds * 1000);
        if (!finished) {
          log.warn({ in_flight: inFlight.size }, "grace period over; releasing running jobs for retry");
          shutdown.abort(new Error("worker shutting down"));
          // Aborted attempts requeue their job and fail their queue entry, so the retry starts promptly.
          await settleWithin(settled, RELEASE_TIMEOUT_MS);
        }
        // Attempts still waiting for an unavailable database to record their outcome give up at once;
        // their queue entries lapse and are retried elsewhere.
        stopWaiting.abort();
        await settleWithin(settled, GIVE_UP_TIMEOUT_MS);
        await boss.stop({ graceful: true, timeout: 2000, close: true });
        await listener.close();
        await registration.unregister().catch((error: unknown) => log.warn({ err: error }, "unregister failed"));
        await engine.close();
        await db.destroy();
        await scratch.close();
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
