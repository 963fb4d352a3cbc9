import { API_TARGETS, checkApiTargets } from "./api-targets.ts";
import { BASELINE } from "./api-scenarios.ts";
import type { ScenarioSummary } from "./scenario-summary.ts";

const pad = (value: string | number, width: number) => String(value).padStart(width);

/** Median requests per second of the baseline scenario (0 when it did not run). */
export const baselineOf = (summaries: readonly ScenarioSummary[]) => summaries.find((m) => m.name === BASELINE)?.requestsPerSecond ?? 0;

/**
 * One line per scenario: median throughput and latency with the runs' spread, the CPU one request costs in
 * the API and in the database, the ratio to the baseline, and the verdict on its targets (judged on medians).
 */
export function reportLines(summaries: readonly ScenarioSummary[]): string[] {
  const baseline = baselineOf(summaries);
  const lines = [
    `${"scenario".padEnd(38)}${pad("req/s", 7)}${pad("(min–max)", 13)}${pad("p50", 5)}${pad("p99 ms", 7)}${pad("(min–max)", 11)}${pad("CPU ms/req api+db", 19)}${pad("×base", 7)}  target`,
  ];
  for (const m of summaries) {
    const target = API_TARGETS[m.name];
    const failed = checkApiTargets(m).filter((check) => !check.pass);
    const ratio = baseline > 0 ? (m.requestsPerSecond / baseline).toFixed(2) : "-";
    const cpu = m.cpuMsPerRequest ? `${m.cpuMsPerRequest.api.toFixed(3)}+${m.cpuMsPerRequest.database.toFixed(3)}` : "-";
    const verdict = target
      ? `≥ ${target.minRequestsPerSecond} req/s, p99 ≤ ${target.maxP99Ms} ms: ${failed.length === 0 ? "PASS" : `FAIL (${failed.map((c) => `${c.name.slice(m.name.length + 1)} ${c.measured}${c.unit === "" ? "" : ` ${c.unit}`}, limit ${c.limit}`).join("; ")})`}`
      : "(baseline, no database work)";
    lines.push(
      `${m.name.padEnd(38)}${pad(m.requestsPerSecond, 7)}${pad(`(${m.spread.requestsPerSecond.join("–")})`, 13)}${pad(m.latencyMs.p50, 5)}${pad(m.latencyMs.p99, 7)}${pad(`(${m.spread.p99Ms.join("–")})`, 11)}${pad(cpu, 19)}${pad(ratio, 7)}  ${verdict}`,
    );
  }
  return lines;
}
