import type { Env } from "@caption/shared/config/env";
import type { WorkerLimits } from "../pipeline/worker-limits.ts";

/** The worker's time bounds from the environment (seconds there, milliseconds here). */
export function workerLimitsFromEnv(env: Env): WorkerLimits {
  return {
    download: {
      totalTimeoutMs: env.DOWNLOAD_TIMEOUT_SECONDS * 1000,
      minBytesPerSecond: env.DOWNLOAD_MIN_BYTES_PER_SECOND,
      throughputWindowMs: env.DOWNLOAD_THROUGHPUT_WINDOW_SECONDS * 1000,
    },
    probeTimeoutMs: env.PROBE_TIMEOUT_SECONDS * 1000,
    deadline: { baseSeconds: env.PROCESSING_DEADLINE_BASE_SECONDS, perVideoSecond: env.PROCESSING_DEADLINE_FACTOR },
  };
}
