import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import { JobFailure } from "@caption/shared/errors/codes";
import { QUEUES } from "@caption/shared/jobs/catalog";
import { captionMetrics, type StageName } from "@caption/shared/telemetry/caption-metrics";

const tracer = trace.getTracer("caption-worker");

/** Span attributes of a job; every stage span carries those known when it starts. */
export const JOB_ATTRIBUTES = {
  jobId: "caption.job.id",
  preset: "caption.preset",
  videoDuration: "caption.video.duration",
  engine: "caption.asr.engine",
} as const;

export interface AttemptTracing {
  /** Adds attributes to the job span, the running stage spans (recognition and the render run at once) and every later stage span. */
  annotate(attributes: Attributes): void;
  /** Runs one pipeline stage in its own child span and records its duration. */
  stage<T>(name: StageName, run: () => Promise<T>): Promise<T>;
  /** Marks the attempt failed (the pipeline handles job failures without rethrowing them). */
  fail(error: unknown): void;
  /** Milliseconds each finished stage took, for the completion log line. */
  readonly stageMs: Partial<Record<StageName, number>>;
}

/**
 * Runs one attempt inside a CONSUMER span that continues the submitting request's trace, taken
 * from the W3C `traceparent` the API put in the job payload.
 */
export async function traceAttempt<T>(jobId: string, traceparent: string | undefined, run: (tracing: AttemptTracing) => Promise<T>): Promise<T> {
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
  const common: Attributes = { [JOB_ATTRIBUTES.jobId]: jobId };
  const attributes = { ...common, "messaging.system": "pg-boss", "messaging.operation.type": "process", "messaging.destination.name": QUEUES.captionJob };
  return tracer.startActiveSpan(`process ${QUEUES.captionJob}`, { kind: SpanKind.CONSUMER, attributes }, parent, async (jobSpan) => {
    const running = new Set<Span>();
    const stageMs: Partial<Record<StageName, number>> = {};
    const tracing: AttemptTracing = {
      stageMs,
      annotate(added) {
        Object.assign(common, added);
        jobSpan.setAttributes(added);
        for (const span of running) span.setAttributes(added);
      },
      stage: (name, stageRun) =>
        tracer.startActiveSpan(name, { attributes: { ...common, "caption.stage": name } }, async (span) => {
          running.add(span);
          const started = performance.now();
          let errorType: string | undefined;
          try {
            return await stageRun();
          } catch (error) {
            errorType = markError(span, error);
            throw error;
          } finally {
            running.delete(span);
            span.end();
            const elapsedMs = performance.now() - started;
            stageMs[name] = Math.round(elapsedMs);
            captionMetrics().stageDuration.record(elapsedMs / 1000, { "caption.stage": name, ...(errorType ? { "error.type": errorType } : {}) });
          }
        }),
      fail: (error) => markError(jobSpan, error),
    };
    try {
      return await run(tracing);
    } catch (error) {
      markError(jobSpan, error);
      throw error;
    } finally {
      jobSpan.end();
    }
  });
}

/** Processing seconds per second of audio. */
export function recordTranscription(engine: string, elapsedSeconds: number, audioSeconds: number): void {
  if (audioSeconds > 0) captionMetrics().asrRealTimeFactor.record(elapsedSeconds / audioSeconds, { [JOB_ATTRIBUTES.engine]: engine });
}

export function recordRender(encoder: string, frames: number, elapsedSeconds: number): void {
  if (elapsedSeconds > 0) captionMetrics().renderFramesPerSecond.record(frames / elapsedSeconds, { "caption.render.encoder": encoder });
}

function markError(span: Span, error: unknown): string {
  const type = error instanceof JobFailure ? error.code : error instanceof Error ? error.name : "_OTHER";
  span.setAttribute("error.type", type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  if (error instanceof Error) span.recordException(error);
  return type;
}
