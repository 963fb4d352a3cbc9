// What a load needs, from a bench result's per-worker capacity (bench/src/pipeline/capacity.ts): workers or
// GPUs, KEDA's bounds, API replicas, PostgreSQL connections. Arithmetic only; docs/operations.md
// "Planning capacity" says what each figure rests on.
import { apiConnections, CONNECTION_BUDGET, workerConnections } from "@caption/shared/db/connection-budget";
import type { BenchResult, CapacityRow } from "../pipeline/bench-result.ts";

export const SETUPS = {
  cpu: { label: "one job at a time on this machine's CPU", matches: (row: CapacityRow) => row.kind !== "projection" && row.setup.includes("1 job at a time") },
  "cpu-concurrent": { label: "several jobs at a time on this machine's CPU", matches: (row: CapacityRow) => row.setup.includes("WORKER_CONCURRENCY=") },
  nvenc: { label: "an NVENC GPU (projection)", matches: (row: CapacityRow) => row.setup.startsWith("projection: NVENC") },
  h100: { label: "an H100/H200 without NVENC (projection)", matches: (row: CapacityRow) => row.setup.startsWith("projection: H100") },
} as const;
export type Setup = keyof typeof SETUPS;
const SIZES = { portrait: "1080x1920", landscape: "1920x1080" } as const;

export interface PlanInput {
  result: BenchResult;
  videosPerHour: number;
  /** Video lengths (s) and their shares of the videos; shares need not add up to 1. */
  mix: { seconds: number; share: number }[];
  setup: Setup;
  orientation: keyof typeof SIZES;
  /** The share of their time workers and APIs should be busy at the planned rate (headroom for bursts). */
  utilisation: number;
  /** KEDA's and the HPA's maximum: this many times what the planned rate needs. */
  peakFactor: number;
  /** KEDA's minimum: 0 scales to zero when idle (the first job then waits for a worker to start). */
  minWorkers: number;
}

export interface Plan {
  row: CapacityRow;
  concurrency: number;
  /** Worker-seconds a video of each length in the mix takes. */
  perVideo: { seconds: number; share: number; workerSeconds: number }[];
  /** Workers the rate keeps busy all the time. */
  busyWorkers: number;
  workers: number;
  gpus: number | null;
  keda: { minReplicaCount: number; maxReplicaCount: number; jobsPerReplica: number };
  api: { requestsPerSecond: number; perProcess: number | null; replicas: number; maxReplicas: number };
  postgres: { connections: number; breakdown: string };
}

/** The bench's per-worker videos an hour at 60 s and 600 s as worker-seconds per video, linear in the video's length between (and beyond) them. */
function workerSecondsFor(row: CapacityRow, seconds: number): number {
  const at60 = 3600 / row.videos_per_hour_60s;
  const at600 = 3600 / row.videos_per_hour_600s;
  const perSecond = (at600 - at60) / 540;
  return Math.max(perSecond * seconds, at60 + perSecond * (seconds - 60));
}

/** Requests an API answers per video: create the upload, PUT it, submit, a poll every 5 s while the job runs, five result downloads (local storage). */
const requestsPerVideo = (jobSeconds: number) => 3 + jobSeconds / 5 + 5;

export function planCapacity(input: PlanInput): Plan {
  const { result, setup, orientation } = input;
  const row = result.capacity.find((r) => SETUPS[setup].matches(r) && r.setup.includes(SIZES[orientation]));
  if (!row) throw new Error(`the bench result has no ${orientation} row for ${SETUPS[setup].label}; it has: ${result.capacity.map((r) => r.setup).join("; ")}`);
  const concurrency = Number(/WORKER_CONCURRENCY=(\d+)/.exec(row.setup)?.[1] ?? 1);
  const total = input.mix.reduce((sum, part) => sum + part.share, 0);
  const perVideo = input.mix.map((part) => ({ seconds: part.seconds, share: part.share / total, workerSeconds: workerSecondsFor(row, part.seconds) }));
  const meanWorkerSeconds = perVideo.reduce((sum, part) => sum + part.share * part.workerSeconds, 0);
  const busyWorkers = (input.videosPerHour * meanWorkerSeconds) / 3600;
  const workers = Math.max(1, Math.ceil(busyWorkers / input.utilisation));
  const maxWorkers = Math.max(workers, Math.ceil(workers * input.peakFactor));

  // A job's wall time: one at a time it is the worker-seconds; c at once, each takes about c times as long.
  const meanJobSeconds = meanWorkerSeconds * concurrency;
  const requestsPerSecond = (input.videosPerHour * requestsPerVideo(meanJobSeconds)) / 3600;
  const poll = result.api?.find((s) => s.name === "GET /v1/jobs/{id}")?.requests_per_second ?? null;
  // Two at least, so one can be replaced or fail without an outage.
  const replicas = Math.max(2, poll ? Math.ceil(requestsPerSecond / (poll * input.utilisation)) : 2);
  const maxReplicas = Math.max(replicas, Math.ceil(replicas * input.peakFactor));

  const apiTotal = maxReplicas * apiConnections();
  const workerTotal = maxWorkers * workerConnections(concurrency);
  const oneOff = CONNECTION_BUDGET.oneOff.migrate + CONNECTION_BUDGET.oneOff.admin;
  const keda = 1;
  return {
    row,
    concurrency,
    perVideo,
    busyWorkers,
    workers,
    gpus: row.kind === "projection" ? workers : null,
    keda: { minReplicaCount: Math.min(input.minWorkers, maxWorkers), maxReplicaCount: maxWorkers, jobsPerReplica: concurrency },
    api: { requestsPerSecond, perProcess: poll, replicas, maxReplicas },
    postgres: {
      connections: apiTotal + workerTotal + oneOff + keda,
      breakdown: `${maxReplicas} API × ${apiConnections()} + ${maxWorkers} workers × ${workerConnections(concurrency)} + ${oneOff} (migration, admin) + ${keda} (KEDA)`,
    },
  };
}

/** `60:80,600:20` (seconds:share, shares in any unit) → the mix. */
export function parseMix(text: string): PlanInput["mix"] {
  const mix = text.split(",").map((part) => {
    const m = /^\s*(\d+(?:\.\d+)?)s?\s*:\s*(\d+(?:\.\d+)?)%?\s*$/.exec(part);
    if (!m) throw new Error(`--mix takes SECONDS:SHARE pairs separated by commas (e.g. 60:80,600:20), not "${part}"`);
    return { seconds: Number(m[1]), share: Number(m[2]) };
  });
  if (mix.some((p) => p.seconds <= 0) || mix.every((p) => p.share === 0)) throw new Error("--mix needs a length above 0 and a share above 0");
  return mix;
}
