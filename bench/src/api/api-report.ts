import { checkApiTargets } from "./api-targets.ts";
import { BASELINE } from "./api-scenarios.ts";
import type { ScenarioSummary } from "./scenario-summary.ts";

const pad = (value: string | number, width: number) => String(value).padStart(width);

/** Median requests per second of the baseline scenario (0 when it did not run). */
export const baselineOf = (summaries: readonly ScenarioSummary[]) => summaries.find((m) => m.name === BASELINE)?.requestsPerSecond ?? 0;

/**
 * One line per scenario: median throughput and latency with the runs' spread, the CPU one request costs in
 * the API and in the database, the ratio to the baseline, and whether every answer was the expected one
 * (the speed targets are ratios to the floor, reported by floorReportLines).
 */
export function reportLines(summaries: readonly ScenarioSummary[]): string[] {
  const baseline = baselineOf(summaries);
  const lines = [
    `${"scenario".padEnd(38)}${pad("req/s", 7)}${pad("(min–max)", 13)}${pad("p50", 5)}${pad("p99 ms", 7)}${pad("(min–max)", 11)}${pad("CPU ms/req api+db", 19)}${pad("×base", 7)}  answers`,
  ];
  for (const m of summaries) {
    const failed = checkApiTargets(m).filter((check) => !check.pass);
    const ratio = baseline > 0 ? (m.requestsPerSecond / baseline).toFixed(2) : "-";
    const cpu = m.cpuMsPerRequest ? `${m.cpuMsPerRequest.api.toFixed(3)}+${m.cpuMsPerRequest.database.toFixed(3)}` : "-";
    const verdict = m.name === BASELINE ? "(baseline, no database work)" : failed.length === 0 ? "all expected: PASS" : `FAIL: ${m.unexpected} unexpected`;
    lines.push(
      `${m.name.padEnd(38)}${pad(m.requestsPerSecond, 7)}${pad(`(${m.spread.requestsPerSecond.join("–")})`, 13)}${pad(m.latencyMs.p50, 5)}${pad(m.latencyMs.p99, 7)}${pad(`(${m.spread.p99Ms.join("–")})`, 11)}${pad(cpu, 19)}${pad(ratio, 7)}  ${verdict}`,
    );
  }
  return lines;
}
