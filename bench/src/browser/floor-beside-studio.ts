import { execFile } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { startEmbeddedService } from "@caption/control-plane/testing";
import { createBenchKey } from "../bench-key.ts";
import { makeWorkDir } from "../work-dir.ts";
import { keepStudioBusy } from "./studio-measures.ts";

// `bench:api`'s GET floor ratio (the API's GET /v1/jobs/{id} against a bare node:http + pg server, same run), measured
// by bench:api itself, without and with the studio open in a browser beside it: runs alternate, so the machine's
// other load falls on both sides.

const execFileAsync = promisify(execFile);
const API_BENCH = path.resolve(import.meta.dirname, "../cli/api-bench.ts");
const SCENARIO = "GET /v1/jobs/{id}";
/** A person arriving at the studio this often while the load runs. */
const STUDIO_PERIOD_MS = 1000;

export interface FloorPair {
  without: number;
  with: number;
  studioLoads: number;
}

/** GET floor ratios, `pairs` times without and with the studio open (each ratio bench:api's median of 3 runs). */
export async function floorBesideStudio(browser: Browser, studioDir: string, pairs: number, log: (line: string) => void): Promise<FloorPair[]> {
  const dataDir = await makeWorkDir();
  const service = await startEmbeddedService({ entry: "bench/src/api/api-process.ts", dataDir, env: { LOG_LEVEL: "info", STUDIO_DIR: studioDir } });
  try {
    const key = await createBenchKey(service.databaseUrl, { name: "studio-bench", scopes: ["subtitles:write"], credits: 600 });
    const ratio = async (label: string): Promise<number> => {
      const out = path.join(dataDir, `floor-${label}.json`);
      const args = [API_BENCH, "--url", service.url, "--database-url", service.databaseUrl, "--only", SCENARIO, "--duration", "5", "--warmup", "2", "--repeats", "3", "--jobs", "50", "--out", out];
      await execFileAsync(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
      const result = JSON.parse(await readFile(out, "utf8")) as { floor: { name: string; ratio: number }[] };
      const found = result.floor.find((entry) => entry.name === SCENARIO);
      if (!found) throw new Error(`bench:api reported no floor for ${SCENARIO}`);
      log(`  GET floor ratio ${label}: ${found.ratio.toFixed(3)}`);
      return found.ratio;
    };
    const results: FloorPair[] = [];
    for (let pair = 1; pair <= pairs; pair++) {
      const without = await ratio(`${pair} without the studio`);
      const stop = new AbortController();
      const busy = keepStudioBusy(browser, service.url, key, STUDIO_PERIOD_MS, stop.signal);
      const beside = await ratio(`${pair} with the studio open`).finally(() => stop.abort());
      results.push({ without, with: beside, studioLoads: await busy });
    }
    return results;
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
  }
}
