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
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

/**
 * The floor, run beside the API's scenarios: each of its runs right after the API's run of the same
 * scenario (API, floor, API, floor…), so that a change in the machine's other load falls on both sides
 * of a ratio; with the floor's runs all after the API's, one run's ratio went 0.41× with the load 11.9
 * during the API's and 6.6 during the floor's.
 */
export interface FloorRuns {
  /** Whether the scenario has floor targets. */
  has(name: string): boolean;
  /** One floor run of the scenario (its warm-up first, before its first run). */
  run(name: string, label: string): Promise<void>;
  /** The ratios of every scenario that had floor runs, against the API's summaries. */
  results(apiSummaries: readonly ScenarioSummary[]): FloorResult[];
  stop(): Promise<void>;
}

export async function startFloorRuns(options: FloorOptions): Promise<FloorRuns> {
  const scenarios = apiScenarios(options.keys, options.jobs).filter((s) => FLOOR_TARGETS[s.name]);
  const floor = await startFloor(options.databaseUrl);
  const runs = new Map<string, ScenarioSummary["runs"]>();
  const load = { url: floor.url, connections: options.connections };
  return {
    has: (name) => scenarios.some((s) => s.name === name),
    async run(name, label) {
      const scenario = scenarios.find((s) => s.name === name);
      if (!scenario) return;
      let mine = runs.get(name);
      if (!mine) {
        runs.set(name, (mine = []));
        if (options.warmupSeconds > 0) await runLoad(scenario, { ...load, durationSeconds: options.warmupSeconds }, `floor ${name} warm-up`);
      }
      mine.push({ ...(await runLoad(scenario, { ...load, durationSeconds: options.durationSeconds }, `floor ${label}`)), cpuMsPerRequest: null });
    },
    results(apiSummaries) {
      const results: FloorResult[] = [];
      for (const [name, floorRuns] of runs) {
        const api = apiSummaries.find((m) => m.name === name);
        if (!api) continue;
        const floorSummary = summarize(floorRuns);
        const target = FLOOR_TARGETS[name] ?? { minRatio: 0 };
        const ratio = floorSummary.requestsPerSecond > 0 ? api.requestsPerSecond / floorSummary.requestsPerSecond : 0;
        const p99Ratio = floorSummary.latencyMs.p99 > 0 ? api.latencyMs.p99 / floorSummary.latencyMs.p99 : 0;
        const targets = [atLeast(`${name} req/s ÷ floor's`, round(ratio), target.minRatio, "×")];
        if (target.maxP99Ratio) targets.push(atMost(`${name} p99 ÷ floor's`, round(p99Ratio), target.maxP99Ratio, "×"));
        targets.push(atMost(`floor ${name} unexpected responses`, floorSummary.unexpected, 0, ""));
        results.push({ name, api, floor: floorSummary, ratio, p99Ratio, targets });
      }
      return results;
    },
    stop: () => floor.stop(),
  };
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
