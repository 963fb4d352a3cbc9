import { PRESET_IDS } from "@caption/shared/api/preset";
import type { PreviewRequest } from "@caption/shared/api/preview";
import { atMost, type TargetCheck } from "../targets.ts";

// Previews measured as a style picker asks for them, one client after another answer, while other clients
// keep the API busy reading jobs: every request's own time is kept, for exact percentiles.

export interface PreviewScenario {
  name: string;
  /** The i-th request: the presets in turn, so the figures cover all 16 looks. */
  body(i: number): PreviewRequest;
  maxP95Ms: number;
}

const preset = (i: number) => PRESET_IDS[i % PRESET_IDS.length]!;

/** Issue 26's targets, measured on the 2-core reference machine beside GET /v1/jobs/{id} traffic. */
export const PREVIEW_SCENARIOS: readonly PreviewScenario[] = [
  { name: "POST /v1/previews png 1080x1920", body: (i) => ({ preset: preset(i), width: 1080, height: 1920, format: "png" }), maxP95Ms: 150 },
  { name: "POST /v1/previews mp4 3 s 1080x1920", body: (i) => ({ preset: preset(i), width: 1080, height: 1920, format: "mp4", duration: 3 }), maxP95Ms: 1500 },
];

export interface PreviewMeasurement {
  name: string;
  count: number;
  /** Milliseconds, from the answered requests. */
  latencyMs: { p50: number; p95: number; max: number };
  statusCodes: Record<string, number>;
  bytes: number;
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

/** `connections` clients each asking for a preview, then the next, for `durationSeconds`. */
export async function runPreviewLoad(
  scenario: PreviewScenario,
  options: { url: string; key: string; connections: number; durationSeconds: number },
): Promise<PreviewMeasurement> {
  const until = performance.now() + options.durationSeconds * 1000;
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let bytes = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        const response = await fetch(`${options.url}/v1/previews`, {
          method: "POST",
          headers: { authorization: `Bearer ${options.key}`, "content-type": "application/json" },
          body: JSON.stringify(scenario.body(next++)),
        });
        const body = await response.arrayBuffer();
        statusCodes[response.status] = (statusCodes[response.status] ?? 0) + 1;
        if (response.status === 200) {
          latencies.push(performance.now() - started);
          bytes += body.byteLength;
        }
      }
    }),
  );
  const sorted = latencies.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms);
  const latencyMs = { p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), max: round(sorted.at(-1) ?? Number.NaN) };
  return { name: scenario.name, count: sorted.length, latencyMs, statusCodes, bytes };
}

/** The p95 against the target, and every request answered 200. */
export function checkPreviewTargets(scenario: PreviewScenario, measured: PreviewMeasurement): TargetCheck[] {
  const refused = Object.entries(measured.statusCodes).reduce((sum, [code, n]) => sum + (code === "200" ? 0 : n), 0);
  return [atMost(`${scenario.name} p95 latency`, measured.latencyMs.p95, scenario.maxP95Ms, "ms"), atMost(`${scenario.name} answers other than 200`, refused, 0, "")];
}
