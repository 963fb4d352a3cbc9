import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ApiScenario } from "./bench-result.ts";

const API_BENCH = path.join(import.meta.dirname, "..", "cli", "api-bench.ts");

/** The API benchmark's scenarios, shortened (5 s each after a 2 s warm-up), in a process of its own. */
export async function measureApiThroughput(workDir: string): Promise<ApiScenario[]> {
  const out = path.join(workDir, "api.json");
  const child = spawn(process.execPath, [API_BENCH, "--duration", "5", "--warmup", "2", "--jobs", "200", "--log-level", "warn", "--out", out], { stdio: ["ignore", "ignore", "inherit"] });
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`the API benchmark exited with ${code}`);
  const report = JSON.parse(await readFile(out, "utf8")) as { scenarios: { name: string; requestsPerSecond: number; latencyMs: { p50: number; p99: number } }[] };
  return report.scenarios.map((s) => ({ name: s.name, requests_per_second: s.requestsPerSecond, p50_ms: s.latencyMs.p50, p99_ms: s.latencyMs.p99 }));
}
