import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import path from "node:path";
import { atLeast, atMost, type TargetCheck } from "../targets.ts";
import { apiScenarios, type SeededJob } from "./api-scenarios.ts";
import { runLoad } from "./run-load.ts";
import { summarize, type ScenarioSummary } from "./scenario-summary.ts";

// The floor: the same requests against floor-process.ts (bare node:http + pg, the same database, the same
// run), and the API's figures as ratios of it.

const FLOOR_ENTRY = path.resolve(import.meta.dirname, "floor-process.ts");

/** Each scenario's floor ratios: GET ≥ 0.5× the floor's req/s with p99 ≤ 2× the floor's; POSTs ≥ 0.4×. */
const FLOOR_TARGETS: Readonly<Record<string, { minRatio: number; maxP99Ratio?: number }>> = {
  "GET /v1/jobs/{id}": { minRatio: 0.5, maxP99Ratio: 2 },
  "POST /v1/subtitles": { minRatio: 0.4 },
  "POST /v1/subtitles (Idempotency-Key)": { minRatio: 0.4 },
};

export interface FloorResult {
  name: string;
  api: ScenarioSummary;
  floor: ScenarioSummary;
  ratio: number;
  p99Ratio: number;
  targets: TargetCheck[];
}

async function startFloor(databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [FLOOR_ENTRY], { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once("line", (line) => resolve((JSON.parse(line) as { url: string }).url));
    child.once("exit", (code) => reject(new Error(`the floor server exited (${code}) before listening`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.stdin.end();
      }),
  };
}

export interface FloorOptions {
  databaseUrl: string;
  keys: string[];
  jobs: SeededJob[];
  apiSummaries: readonly ScenarioSummary[];
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  repeats: number;
}

/** Runs the floor's scenarios for every API scenario that has a floor target and was measured. */
export async function measureFloor(options: FloorOptions): Promise<FloorResult[]> {
  const wanted = apiScenarios(options.keys, options.jobs).filter((s) => FLOOR_TARGETS[s.name] && options.apiSummaries.some((m) => m.name === s.name));
  if (wanted.length === 0) return [];
  const floor = await startFloor(options.databaseUrl);
  const results: FloorResult[] = [];
  try {
    for (const scenario of wanted) {
      const load = { url: floor.url, connections: options.connections };
      if (options.warmupSeconds > 0) await runLoad(scenario, { ...load, durationSeconds: options.warmupSeconds }, `floor ${scenario.name} warm-up`);
      const runs: ScenarioSummary["runs"] = [];
      for (let run = 1; run <= options.repeats; run++) {
        const measured = await runLoad(scenario, { ...load, durationSeconds: options.durationSeconds }, `floor ${scenario.name} ${run}/${options.repeats}`);
        runs.push({ ...measured, cpuMsPerRequest: null });
      }
      const floorSummary = summarize(runs);
      const api = options.apiSummaries.find((m) => m.name === scenario.name) as ScenarioSummary;
      const target = FLOOR_TARGETS[scenario.name] ?? { minRatio: 0 };
      const ratio = floorSummary.requestsPerSecond > 0 ? api.requestsPerSecond / floorSummary.requestsPerSecond : 0;
      const p99Ratio = floorSummary.latencyMs.p99 > 0 ? api.latencyMs.p99 / floorSummary.latencyMs.p99 : 0;
      const targets = [atLeast(`${scenario.name} req/s ÷ floor's`, round(ratio), target.minRatio, "×")];
      if (target.maxP99Ratio) targets.push(atMost(`${scenario.name} p99 ÷ floor's`, round(p99Ratio), target.maxP99Ratio, "×"));
      targets.push(atMost(`floor ${scenario.name} unexpected responses`, floorSummary.unexpected, 0, ""));
      results.push({ name: scenario.name, api, floor: floorSummary, ratio, p99Ratio, targets });
    }
  } finally {
    await floor.stop();
  }
  return results;
}

const round = (n: number) => Math.round(n * 100) / 100;

export function floorReportLines(results: readonly FloorResult[]): string[] {
  if (results.length === 0) return [];
  const lines = ["", "against the floor (bare node:http + pg pool, same statements, same database, same run):"];
  for (const r of results) {
    const failed = r.targets.filter((t) => !t.pass);
    lines.push(
      `  ${r.name.padEnd(38)} API ${r.api.requestsPerSecond} req/s p99 ${r.api.latencyMs.p99} ms | floor ${r.floor.requestsPerSecond} req/s p99 ${r.floor.latencyMs.p99} ms` +
        ` | ${round(r.ratio)}× req/s, ${round(r.p99Ratio)}× p99: ${failed.length === 0 ? "PASS" : `FAIL (${failed.map((t) => `${t.name.slice(r.name.length + 1)} ${t.measured}, limit ${t.limit}`).join("; ")})`}`,
    );
  }
  return lines;
}
