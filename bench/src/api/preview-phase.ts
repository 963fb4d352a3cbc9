import path from "node:path";
import { treeCpuMs } from "../pipeline/tree-cpu.ts";
import { apiScenarios, type SeededJob } from "./api-scenarios.ts";
import { checkPreviewTargets, PREVIEW_SCENARIOS, runPreviewLoad, type PreviewMeasurement } from "./preview-load.ts";
import { runLoad, type Measurement } from "./run-load.ts";
import { startWorkerProcess } from "./worker-process.ts";

// The API benchmark's previews, drawn by a worker process beside the API: alone (their latency and their CPU
// time, the API's, the worker's and the database's), then while the API also serves GET traffic.

export interface PreviewRun {
  alone: PreviewMeasurement;
  cpuMsPerPreview: number | null;
  measured: PreviewMeasurement;
  beside: Measurement;
}

export interface PreviewPhaseOptions {
  url: string;
  keys: string[];
  jobs: SeededJob[];
  /** Scenarios whose name contains it only. */
  only: string | undefined;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** A service this benchmark started (a worker process is started beside it, over its database); none: one runs already. */
  started: { pid: number; databaseUrl: string; dataDir: string } | undefined;
}

export async function measurePreviews(options: PreviewPhaseOptions): Promise<PreviewRun[]> {
  const { url, connections, durationSeconds, warmupSeconds, started } = options;
  const scenarios = PREVIEW_SCENARIOS.filter((s) => !options.only || s.name.includes(options.only));
  if (scenarios.length === 0) return [];
  const worker = started ? await startWorkerProcess(started.databaseUrl, path.join(started.dataDir, "worker")) : undefined;
  try {
    const reads = apiScenarios(options.keys, options.jobs).find((s) => s.name === "GET /v1/jobs/{id}")!;
    const key = options.keys[0]!;
    const cpuMs = async () => {
      if (!started || !worker) return null;
      const trees = await Promise.all([treeCpuMs(started.pid), treeCpuMs(worker.pid)]);
      return trees.reduce((sum, tree) => sum + tree.rootMs + tree.descendantsMs, 0);
    };
    const runs: PreviewRun[] = [];
    for (const scenario of scenarios) {
      if (warmupSeconds > 0) await runPreviewLoad(scenario, { url, key, connections: 1, durationSeconds: warmupSeconds });
      console.error(`  ${scenario.name} alone, ${durationSeconds} s`);
      const before = await cpuMs();
      const alone = await runPreviewLoad(scenario, { url, key, connections: 1, durationSeconds });
      const after = await cpuMs();
      console.error(`  ${scenario.name} beside ${reads.name} (${connections} connections), ${durationSeconds} s`);
      const [beside, measured] = await Promise.all([
        runLoad(reads, { url, connections, durationSeconds }, `${reads.name} beside previews`),
        runPreviewLoad(scenario, { url, key, connections: 1, durationSeconds }),
      ]);
      const cpuMsPerPreview = before !== null && after !== null && alone.count > 0 ? Math.round((after - before) / alone.count) : null;
      runs.push({ alone, cpuMsPerPreview, measured, beside });
    }
    return runs;
  } finally {
    await worker?.stop();
  }
}

const scenarioOf = (run: PreviewRun) => PREVIEW_SCENARIOS.find((s) => s.name === run.measured.name)!;

/** A line per scenario: alone (count, p50, p95, CPU per preview), beside GET traffic (count, p50, p95, max, GET req/s), the verdict. */
export function previewReportLines(runs: readonly PreviewRun[]): string[] {
  if (runs.length === 0) return [];
  const cell = (value: number | null, width: number) => String(value ?? "-").padStart(width);
  const head = `${"preview (one client)".padEnd(38)}${"alone: n".padStart(9)}${"p50".padStart(6)}${"p95".padStart(6)}${"CPU ms".padStart(8)}`;
  const lines = [`\n${head}  beside GET: n${"p50".padStart(6)}${"p95".padStart(6)}${"max".padStart(6)}${"GET req/s".padStart(11)}  target`];
  for (const run of runs) {
    const { alone, measured, beside } = run;
    const scenario = scenarioOf(run);
    const failed = checkPreviewTargets(scenario, measured).filter((check) => !check.pass);
    const verdict = failed.length === 0 ? "PASS" : `FAIL (${failed.map((c) => `${c.name.slice(scenario.name.length + 1)} ${c.measured}`).join("; ")})`;
    const aloneCells = `${cell(alone.count, 9)}${cell(alone.latencyMs.p50, 6)}${cell(alone.latencyMs.p95, 6)}${cell(run.cpuMsPerPreview, 8)}`;
    const besideCells = `${cell(measured.count, 12)}${cell(measured.latencyMs.p50, 6)}${cell(measured.latencyMs.p95, 6)}${cell(measured.latencyMs.max, 6)}${cell(beside.requestsPerSecond, 11)}`;
    lines.push(`${measured.name.padEnd(38)}${aloneCells}  ${besideCells}  p95 ≤ ${scenario.maxP95Ms} ms beside GET: ${verdict}`);
  }
  return lines;
}

/** The runs as the results file keeps them, with their targets. */
export function previewResults(runs: readonly PreviewRun[]): object[] {
  return runs.map((run) => ({
    ...run.measured,
    alone: run.alone,
    cpu_ms_per_preview: run.cpuMsPerPreview,
    beside: run.beside,
    targets: checkPreviewTargets(scenarioOf(run), run.measured),
  }));
}
