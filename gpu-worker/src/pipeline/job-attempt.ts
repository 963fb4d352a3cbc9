import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { isTerminal } from "@caption/shared/api/job";
import { retryWhileDatabaseUnavailable } from "@caption/shared/db/database-retry";
import type { JobKind } from "@caption/shared/db/tables";
import { jobStatus, loadJob } from "../db/job-repository.ts";
import { JOB_ATTRIBUTES, traceAttempt, type AttemptTracing } from "../telemetry/attempt-tracing.ts";
import type { AttemptContext, PipelineDeps } from "./attempt-context.ts";
import { endFailedAttempt } from "./attempt-failure.ts";
import { watchForCancel } from "./cancel-watch.ts";
import { advanceJob, claimJob } from "@caption/shared/jobs/job-lifecycle";
import { runCaptionJob } from "./process-caption-job.ts";
import { runRenderJob } from "./process-render-job.ts";
import { processingDeadline } from "./processing-deadline.ts";
import { progressReporter } from "./progress-reporter.ts";

export interface AttemptOptions {
  /** Aborted by the queue on shutdown past the grace period. */
  signal: AbortSignal;
  /** The queue will not retry this attempt: an unexpected error must fail the job now. */
  finalAttempt: boolean;
  /** W3C trace context of the submitting request: the attempt's span joins its trace. */
  traceparent?: string;
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
  await persist(() => claimJob(deps.db, jobId)).catch(couldNotStart);
  tracing.annotate({ [JOB_ATTRIBUTES.preset]: job.preset, "caption.job.kind": job.kind, "caption.job.attempt": job.attempts + 1 });
  const dir = await mkdir(deps.workDir, { recursive: true })
    .then(() => mkdtemp(path.join(deps.workDir, `${jobId}-`)))
    .catch(couldNotStart);
  const cancel = watchForCancel(() => jobStatus(deps.db, jobId), jobId, attempt.signal, deps.clock, deps.jobChanges);
  // From here every child process of the attempt is being killed; "work stopped" says when the last was gone.
  let canceledAt: number | undefined;
  cancel.signal.addEventListener("abort", () => {
    if (!cancel.canceled()) return;
    canceledAt = performance.now();
    log.info("cancel heard; stopping work");
  }, { once: true });
  let deadline: ReturnType<typeof processingDeadline> | undefined;
  const ctx: AttemptContext = {
    deps,
    job,
    log,
    tracing,
    signal: cancel.signal,
    dir,
    progress: progressReporter(deps.db, jobId, deps.clock),
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
    await endFailedAttempt(deps, jobId, error, {
      canceled: cancel.canceled(),
      ...(canceledAt === undefined ? {} : { canceledAt }),
      shutdown: attempt.signal.aborted,
      finalAttempt: attempt.finalAttempt,
      storedFiles: ctx.stored.length > 0,
      log,
      persist,
    });
  } finally {
    deadline?.clear();
    cancel.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
