import { API_TARGETS, checkApiTargets } from "./api-targets.ts";
import { BASELINE } from "./api-scenarios.ts";
import type { Measurement } from "./run-load.ts";

const pad = (value: string | number, width: number) => String(value).padStart(width);

/** Requests per second of the baseline scenario (0 when it did not run). */
export const baselineOf = (measurements: readonly Measurement[]) => measurements.find((m) => m.name === BASELINE)?.requestsPerSecond ?? 0;

/** One line per scenario: throughput, latency, the ratio to the baseline and the verdict on its targets. */
export function reportLines(measurements: readonly Measurement[]): string[] {
  const baseline = baselineOf(measurements);
  const lines = [`${"scenario".padEnd(38)}${pad("req/s", 8)}${pad("p50 ms", 8)}${pad("p99 ms", 8)}${pad("×base", 7)}  target`];
  for (const m of measurements) {
    const target = API_TARGETS[m.name];
    const failed = checkApiTargets(m).filter((check) => !check.pass);
    const ratio = baseline > 0 ? (m.requestsPerSecond / baseline).toFixed(2) : "-";
    const verdict = target
      ? `≥ ${target.minRequestsPerSecond} req/s, p99 ≤ ${target.maxP99Ms} ms: ${failed.length === 0 ? "PASS" : `FAIL (${failed.map((c) => `${c.name.slice(m.name.length + 1)} ${c.measured}${c.unit === "" ? "" : ` ${c.unit}`}, limit ${c.limit}`).join("; ")})`}`
      : "(baseline, no database work)";
    lines.push(`${m.name.padEnd(38)}${pad(m.requestsPerSecond, 8)}${pad(m.latencyMs.p50, 8)}${pad(m.latencyMs.p99, 8)}${pad(ratio, 7)}  ${verdict}`);
  }
  return lines;
}
