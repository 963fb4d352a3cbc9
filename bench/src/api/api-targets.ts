import type { Measurement } from "./run-load.ts";

export interface Target { minRequestsPerSecond: number; maxP99Ms: number }

/** Targets on the 2-core reference machine (loopback, embedded PostgreSQL, no worker). */
export const TARGETS: Record<string, Target> = {
  "GET /v1/jobs/{id}": { minRequestsPerSecond: 1500, maxP99Ms: 25 },
  "POST /v1/subtitles": { minRequestsPerSecond: 300, maxP99Ms: 60 },
  "POST /v1/subtitles (Idempotency-Key)": { minRequestsPerSecond: 300, maxP99Ms: 60 },
};

export interface Verdict { scenario: string; target: Target; pass: boolean; reasons: string[] }

export function judge(measurement: Measurement): Verdict | undefined {
  const target = TARGETS[measurement.name];
  if (!target) return undefined;
  const reasons: string[] = [];
  if (measurement.requestsPerSecond < target.minRequestsPerSecond) reasons.push(`${measurement.requestsPerSecond} req/s < ${target.minRequestsPerSecond}`);
  if (measurement.latencyMs.p99 > target.maxP99Ms) reasons.push(`p99 ${measurement.latencyMs.p99} ms > ${target.maxP99Ms}`);
  if (measurement.unexpected > 0) reasons.push(`${measurement.unexpected} unexpected responses or errors`);
  return { scenario: measurement.name, target, pass: reasons.length === 0, reasons };
}
