import type { DeadlinePolicy } from "./processing-deadline.ts";

/** How long one job may hold a worker at each step (docs/security.md adds them up). */
export interface WorkerLimits {
  download: { totalTimeoutMs: number; minBytesPerSecond: number; throughputWindowMs: number };
  /** Each ffprobe run on the source, and on the rendered output. */
  probeTimeoutMs: number;
  /** Transcription, render and the check of the output together, proportional to the billed duration. */
  deadline: DeadlinePolicy;
}
