import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import { isTerminal, type JobStatus } from "@caption/shared/api/job";
import type { Db } from "@caption/shared/db/database";
import { retryWhileDatabaseUnavailable } from "@caption/shared/db/database-retry";
import type { JobKind, JobRow } from "@caption/shared/db/tables";
import type { SpeechEngine } from "../asr/speech-engine.ts";
import { countAttempt, jobStatus, loadJob } from "../db/job-repository.ts";
import type { H264Encoder } from "../media/h264-encoder.ts";
import type { VideoDecoder } from "../media/video-decoder.ts";
import type { ResultStore } from "../storage/result-store.ts";
import { JOB_ATTRIBUTES, traceAttempt, type AttemptTracing } from "../telemetry/attempt-tracing.ts";
import { endFailedAttempt } from "./attempt-failure.ts";
import { watchForCancel } from "./cancel-watch.ts";
import { advanceJob } from "./job-transitions.ts";
import { runCaptionJob } from "./process-caption-job.ts";
import { runRenderJob } from "./process-render-job.ts";
import { processingDeadline } from "./processing-deadline.ts";
import { progressReporter, type ProgressReporter } from "./progress-reporter.ts";
import type { WorkerLimits } from "./worker-limits.ts";

export interface PipelineDeps {
  db: Db;
  store: ResultStore;
  engine: SpeechEngine;
  encoder: H264Encoder;
  decoder: VideoDecoder;
  logger: Logger;
  ffmpegPath: string;
  ffprobePath: string;
  allowPrivateAddresses: boolean;
  /** Scratch space; each job gets its own folder, removed when it ends. */
  workDir: string;
  vadModelPath?: string;
  /** Bounds on how long a job may hold the worker (download, probes, processing). */
  limits: WorkerLimits;
  /** Ends the waits for an unavailable database to record an attempt's start or outcome (the worker is going away). */
  stopWaiting?: AbortSignal;
}

export interface AttemptOptions {
  /** Aborted by the queue on shutdown past the grace period. */
  signal: AbortSignal;
  /** The queue will not retry this attempt: an unexpected error must fail the job now. */
  finalAttempt: boolean;
  /** W3C trace context of the submitting request: the attempt's span joins its trace. */
  traceparent?: string;
}

/** What every stage of one attempt works with. */
export interface AttemptContext {
  deps: PipelineDeps;
  job: JobRow;
  log: Logger;
  tracing: AttemptTracing;
  /** Aborts on cancel and on shutdown. */
  signal: AbortSignal;
  /** This attempt's scratch folder, removed when it ends. */
  dir: string;
  progress: ProgressReporter;
  /** Moves the job into a stage's status (logged once per status) and its progress on; ends the attempt when the job stopped running. */
  enter(status: Extract<JobStatus, "ingesting" | "transcribing" | "rendering">, progress: number): Promise<void>;
  /** A transition found the job no longer running (canceled): abort the attempt. */
  stopNow(): never;
  /** From here the work is billed: `signal`, also aborted once a video of this length has had its processing time. */
  startBilledWork(durationSeconds: number): AbortSignal;
  /** Keys stored so far; a failed attempt removes the job's files when there are any. */
  stored: string[];
  /** performance.now() when the attempt began. */
  started: number;
}

/**
 * One attempt at a job: the row is loaded and counted, a cancel watch and a scratch folder set up, the
 * job's kind runs its stages, and whatever it throws ends the attempt (attempt-failure.ts). Every stage
 * is safe to repeat, so a retried attempt simply starts over.
 */
export async function processJob(deps: PipelineDeps, jobId: string, attempt: AttemptOptions): Promise<void> {
  await traceAttempt(jobId, attempt.traceparent, (tracing) => runAttempt(deps, jobId, attempt, tracing));
}

const STAGES_OF_KIND: Record<JobKind, (ctx: AttemptContext) => Promise<void>> = { caption: runCaptionJob, render: runRenderJob };

async function runAttempt(deps: PipelineDeps, jobId: string, attempt: AttemptOptions, tracing: AttemptTracing): Promise<void> {
  const log = deps.logger.child({ job_id: jobId });
  const persist = <T>(write: () => Promise<T>) => retryWhileDatabaseUnavailable(write, { signal: deps.stopWaiting });
  const couldNotStart = (error: unknown): never => {
    log.warn({ err: error }, "attempt could not start; the job will be retried");
    throw error;
  };
  const job = await persist(() => loadJob(deps.db, jobId)).catch(couldNotStart);
  if (!job || isTerminal(job.status)) {
    log.info({ status: job?.status }, "job is not runnable; skipping");
    return;
  }
  await persist(() => countAttempt(deps.db, jobId)).catch(couldNotStart);
  tracing.annotate({ [JOB_ATTRIBUTES.preset]: job.preset, "caption.job.kind": job.kind, "caption.job.attempt": job.attempts + 1 });
  const dir = await mkdir(deps.workDir, { recursive: true })
    .then(() => mkdtemp(path.join(deps.workDir, `${jobId}-`)))
    .catch(couldNotStart);
  const cancel = watchForCancel(() => jobStatus(deps.db, jobId), jobId, attempt.signal);
  let deadline: ReturnType<typeof processingDeadline> | undefined;
  const ctx: AttemptContext = {
    deps,
    job,
    log,
    tracing,
    signal: cancel.signal,
    dir,
    progress: progressReporter(deps.db, jobId),
    async enter(status, progress) {
      if (!(await advanceJob(deps.db, jobId, { status, progress }))) cancel.stopNow();
      log.info({ status }, "stage started");
    },
    stopNow: () => cancel.stopNow(),
    startBilledWork(durationSeconds) {
      deadline = processingDeadline(durationSeconds, deps.limits.deadline);
      return AbortSignal.any([cancel.signal, deadline.signal]);
    },
    stored: [],
    started: performance.now(),
  };
  try {
    await STAGES_OF_KIND[job.kind](ctx);
  } catch (error) {
    tracing.fail(error);
    await endFailedAttempt(deps, jobId, error, { canceled: cancel.canceled(), shutdown: attempt.signal.aborted, finalAttempt: attempt.finalAttempt, storedFiles: ctx.stored.length > 0, log, persist });
  } finally {
    deadline?.clear();
    cancel.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
