// `npm run bench:studio [-- options]`: the studio's speed in a real browser against a real service. A benchmark, not
// a test: it prints PASS/FAIL against the targets and exits 0 either way (1 only if it could not run).
import { mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { builtStudio, CHROMIUM, startEmbeddedService } from "@caption/control-plane/testing";
import { makeSpeechVideo } from "@caption/gpu-worker/testing";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { createBenchKey } from "../bench-key.ts";
import { floorBesideStudio } from "../browser/floor-beside-studio.ts";
import { firstLoadBytes, interactiveTimes, previewRedraws, quantile } from "../browser/studio-measures.ts";
import { atLeast, atMost, type TargetCheck } from "../targets.ts";
import { makeWorkDir } from "../work-dir.ts";

const USAGE = `usage: studio-bench [options]
  --runs N (5)         fresh page loads timed (the median is the figure)
  --changes N (20)     style changes whose preview redraws are timed (the p95 is the figure)
  --floor-pairs N (2)  bench:api GET floor runs without and with the studio open (0: skip)
  --out FILE           where to write the JSON results (default bench/results/studio-<timestamp>.json)`;
const RESULTS_DIR = path.resolve(import.meta.dirname, "../../results");
const median = (values: readonly number[]) => quantile(values, 0.5);

async function main(argv: string[]): Promise<number> {
  const values = parseCommandLine(
    { args: argv, options: { runs: { type: "string", default: "5" }, changes: { type: "string", default: "20" }, "floor-pairs": { type: "string", default: "2" }, out: { type: "string" }, help: { type: "boolean", short: "h", default: false } }, strict: true },
    USAGE,
  );
  if (typeof values === "number") return values;
  const [runs, changes, pairs] = [values.runs, values.changes, values["floor-pairs"]].map(Number);
  if (![runs, changes, pairs].every((n) => Number.isInteger(n) && n! >= 0)) {
    process.stderr.write(`counts must be whole numbers\n${USAGE}\n`);
    return 2;
  }
  const loadAtStart = os.loadavg();
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const dataDir = await makeWorkDir();
  const browser = await chromium.launch(CHROMIUM);
  let service: Awaited<ReturnType<typeof startEmbeddedService>> | undefined;
  try {
    const studioDir = await builtStudio();
    const bytes = await firstLoadBytes(studioDir);
    console.error(`starting the service (npm start's entry point) in ${dataDir}`);
    service = await startEmbeddedService({ entry: "embedded", dataDir, env: { LOG_LEVEL: "info", STUDIO_DIR: studioDir, PREVIEW_RATE_LIMIT_PER_MINUTE: "100000" } });
    const key = await createBenchKey(service.databaseUrl, { name: "studio-bench", scopes: ["subtitles:write"], credits: 600 });
    console.error(`timing ${runs!} page loads`);
    const interactive = await interactiveTimes(browser, service.url, key, runs!);
    const clip = await makeSpeechVideo({ text: "A portrait clip for the look of its captions.", width: 1080, height: 1920, fps: 30, padSeconds: 0.5 });
    console.error(`timing ${changes!} preview redraws over a 1080 × 1920 upload`);
    const redraws = await previewRedraws(browser, service.url, key, clip.path, changes!);
    await service.stop();
    service = undefined;
    console.error(`bench:api's GET floor, ${pairs!} × without and with the studio open`);
    const floor = pairs! > 0 ? await floorBesideStudio(browser, studioDir, pairs!, (line) => console.error(line)) : [];

    const quotients = floor.map((pair) => pair.with / pair.without);
    const targets: TargetCheck[] = [
      atMost("first load: JavaScript + CSS, gzip", bytes.totalGzipBytes / 1024, 150, "KiB"),
      atMost("interactive after navigation, fresh (median)", median(interactive.cold), 1000, "ms"),
      atMost("interactive after navigation, signed in (median)", median(interactive.signedIn), 1000, "ms"),
      atMost("preview redraw after a style change (p95)", quantile(redraws, 0.95), 400, "ms"),
      ...(floor.length > 0 ? [atLeast("GET floor ratio with the studio open ÷ without (median)", median(quotients), 0.9, "×")] : []),
    ];
    console.log(`\nStudio benchmark: ${os.cpus().length} CPUs, load average at start ${loadAtStart.map((n) => n.toFixed(2)).join(" ")}, at end ${os.loadavg().map((n) => n.toFixed(2)).join(" ")}`);
    console.log(`  first load: ${bytes.files.map((f) => `${f.name} ${(f.gzipBytes / 1024).toFixed(1)} KiB`).join(", ")}`);
    console.log(`  interactive (ms): fresh ${interactive.cold.map(Math.round).join(", ")}; signed in ${interactive.signedIn.map(Math.round).join(", ")}`);
    console.log(`  preview redraws (ms): median ${Math.round(median(redraws))}, p95 ${Math.round(quantile(redraws, 0.95))}, max ${Math.round(Math.max(...redraws))}`);
    for (const [i, pair] of floor.entries()) console.log(`  GET floor ratio, pair ${i + 1}: ${pair.without.toFixed(3)} without, ${pair.with.toFixed(3)} with the studio (${pair.studioLoads} page loads meanwhile)`);
    for (const t of targets) console.log(`${t.pass ? "PASS" : "FAIL"}  ${t.name}: ${t.measured.toFixed(2)} ${t.unit} (target ${t.name.includes("÷") ? "≥" : "≤"} ${t.limit} ${t.unit})`);
    await mkdir(RESULTS_DIR, { recursive: true });
    const file = values.out ? path.resolve(values.out) : path.join(RESULTS_DIR, `studio-${stamp}.json`);
    const machine = { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model, load_average_at_start: loadAtStart, load_average_at_end: os.loadavg() };
    await writeFile(file, `${JSON.stringify({ started_at: stamp, machine, first_load: bytes, interactive_ms: interactive, preview_redraw_ms: redraws, floor, targets }, null, 2)}\n`);
    console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.stack : error);
    return 1;
  } finally {
    await service?.stop();
    await browser.close();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
  }
}

process.exitCode = await main(process.argv.slice(2));
