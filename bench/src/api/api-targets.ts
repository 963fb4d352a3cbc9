import { atLeast, atMost, type TargetCheck } from "../targets.ts";
import type { ScenarioSummary } from "./scenario-summary.ts";

export interface ApiTarget {
  minRequestsPerSecond: number;
  maxP99Ms: number;
}

/** Targets on the 2-core reference machine (loopback, embedded PostgreSQL, no worker). */
export const API_TARGETS: Readonly<Record<string, ApiTarget>> = {
  "GET /v1/jobs/{id}": { minRequestsPerSecond: 1500, maxP99Ms: 25 },
  "POST /v1/subtitles": { minRequestsPerSecond: 300, maxP99Ms: 60 },
  "POST /v1/subtitles (Idempotency-Key)": { minRequestsPerSecond: 300, maxP99Ms: 60 },
};

/** A scenario's medians against its targets: throughput, p99 latency, and no unexpected answers in any run. None for a scenario without targets. */
export function checkApiTargets(measurement: Pick<ScenarioSummary, "name" | "requestsPerSecond" | "latencyMs" | "unexpected">): TargetCheck[] {
  const target = API_TARGETS[measurement.name];
  if (!target) return [];
  return [
    atLeast(`${measurement.name} throughput`, measurement.requestsPerSecond, target.minRequestsPerSecond, "req/s"),
    atMost(`${measurement.name} p99 latency`, measurement.latencyMs.p99, target.maxP99Ms, "ms"),
    atMost(`${measurement.name} unexpected responses or errors`, measurement.unexpected, 0, ""),
  ];
}
