import type { Measurement } from "./run-load.ts";

/** CPU time one request costs, in milliseconds: the API's node process, and the database's processes. */
export interface CpuPerRequest {
  api: number;
  database: number;
}

/** A scenario run several times: medians to quote, the spread to judge them by. */
export interface ScenarioSummary {
  name: string;
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number };
  /** Smallest and largest of the runs. */
  spread: { requestsPerSecond: [number, number]; p99Ms: [number, number] };
  cpuMsPerRequest: CpuPerRequest | null;
  /** Over all runs. */
  unexpected: number;
  runs: (Measurement & { cpuMsPerRequest: CpuPerRequest | null })[];
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

const range = (values: readonly number[]): [number, number] => [Math.min(...values), Math.max(...values)];
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

export function summarize(runs: ScenarioSummary["runs"]): ScenarioSummary {
  const first = runs[0];
  if (!first) throw new Error("a scenario needs at least one run");
  const rates = runs.map((r) => r.requestsPerSecond);
  const p99s = runs.map((r) => r.latencyMs.p99);
  const cpus = runs.map((r) => r.cpuMsPerRequest).filter((c): c is CpuPerRequest => c !== null);
  return {
    name: first.name,
    requestsPerSecond: Math.round(median(rates)),
    latencyMs: { p50: median(runs.map((r) => r.latencyMs.p50)), p99: median(p99s) },
    spread: { requestsPerSecond: range(rates), p99Ms: range(p99s) },
    cpuMsPerRequest: cpus.length === 0 ? null : { api: round(median(cpus.map((c) => c.api)), 3), database: round(median(cpus.map((c) => c.database)), 3) },
    unexpected: runs.reduce((sum, r) => sum + r.unexpected, 0),
    runs,
  };
}
