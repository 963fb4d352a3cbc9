import { metrics, type Counter, type Histogram, type Meter, type MeterProvider } from "@opentelemetry/api";
import type { JobStatus } from "../api/job.ts";

export const METER_NAME = "caption-service";

/** Pipeline stages, each a span and a `caption.stage.duration` series. */
export const STAGE_NAMES = ["ingest", "inspect", "transcribe", "render", "store", "charge"] as const;
export type StageName = (typeof STAGE_NAMES)[number];

/** The service's own instruments (names follow OTel conventions; Prometheus turns dots into underscores). */
export interface CaptionMetrics {
  /** +1 each time a job enters a status, attribute `caption.job.status`. */
  jobTransitions: Counter;
  /** Seconds per pipeline stage, attributes `caption.stage` and, on failure, `error.type`. */
  stageDuration: Histogram;
  /** Processing seconds per second of audio, attribute `caption.asr.engine`. */
  asrRealTimeFactor: Histogram;
  /** Rendered video frames per wall-clock second, attribute `caption.render.encoder`. */
  renderFramesPerSecond: Histogram;
  creditsReserved: Counter;
  creditsCharged: Counter;
}

let cached: { provider: MeterProvider; instruments: CaptionMetrics } | undefined;

/** The instruments on the current global meter provider (no-ops before telemetry starts). */
export function captionMetrics(): CaptionMetrics {
  const provider = metrics.getMeterProvider();
  if (cached?.provider !== provider) cached = { provider, instruments: createInstruments(provider.getMeter(METER_NAME)) };
  return cached.instruments;
}

export function countTransition(status: JobStatus): void {
  captionMetrics().jobTransitions.add(1, { "caption.job.status": status });
}

function createInstruments(meter: Meter): CaptionMetrics {
  return {
    jobTransitions: meter.createCounter("caption.jobs", { description: "Jobs entering each status", unit: "{job}" }),
    stageDuration: meter.createHistogram("caption.stage.duration", {
      description: "Duration of a pipeline stage",
      unit: "s",
      advice: { explicitBucketBoundaries: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200] },
    }),
    asrRealTimeFactor: meter.createHistogram("caption.asr.real_time_factor", {
      description: "Transcription time divided by audio duration",
      unit: "1",
      advice: { explicitBucketBoundaries: [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 4] },
    }),
    renderFramesPerSecond: meter.createHistogram("caption.render.frames_per_second", {
      description: "Frames rendered and encoded per second",
      unit: "{frame}/s",
      advice: { explicitBucketBoundaries: [5, 10, 15, 25, 30, 45, 60, 90, 120, 180, 240, 480] },
    }),
    creditsReserved: meter.createCounter("caption.credits.reserved", { description: "Prepaid seconds reserved for jobs", unit: "s" }),
    creditsCharged: meter.createCounter("caption.credits.charged", { description: "Prepaid seconds charged for completed jobs", unit: "s" }),
  };
}
