// `npm run bench:api [-- options]`: throughput and latency of the job API on loopback.
// A benchmark, not a test: it prints PASS/FAIL against the targets and exits 0 either way (1 only if it could not run).
import { mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startEmbeddedService, type EmbeddedService } from "@caption/control-plane/testing";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { baselineOf, reportLines } from "../api/api-report.ts";
import { apiScenarios, seedJobs } from "../api/api-scenarios.ts";
import { checkApiTargets } from "../api/api-targets.ts";
import { floorReportLines, startFloorRuns, type FloorResult } from "../api/floor-phase.ts";
import { measurePreviews, previewReportLines, previewResults } from "../api/preview-phase.ts";
import { runLoad } from "../api/run-load.ts";
import { summarize, type ScenarioSummary } from "../api/scenario-summary.ts";
import { treeCpuMs } from "../pipeline/tree-cpu.ts";
import { startWaitSampler, type WaitSample } from "../api/wait-sampler.ts";
import { createBenchKey } from "../bench-key.ts";
import { makeWorkDir } from "../work-dir.ts";

const USAGE = `usage: api-bench [options]
  --url URL            benchmark a running service (with a worker, for the previews) instead of starting one
                       (embedded PostgreSQL; a worker process of its own joins for the preview scenarios)
  --key KEY            API key to use with --url; otherwise one is created through --database-url / DATABASE_URL
  --database-url URL   database of the running service (to create the benchmark key)
  --accounts N (1)     spread the load over N accounts, one key each (the per-account limits serialise one account)
  --duration S (10)  --warmup S (3)  --connections N (10)  --jobs N (500)  --log-level L (info)
  --repeats N (3)      runs of each scenario: the report gives the median and the spread (min–max)
  --only TEXT          run only the scenarios whose name contains TEXT (e.g. POST, /v1/jobs, baseline, previews)
  --out FILE           where to write the JSON results (default bench/results/api-<timestamp>.json)
  --profile            CPU profile of the embedded API next to the results, and a sample of what
                       the service's database sessions wait on during each scenario`;
const RESULTS_DIR = path.resolve(import.meta.dirname, "../../results");
// What `npm run api` runs the API with (package.json): the HTTP, Koa and pg instrumentations are part of its cost.
const TELEMETRY_PRELOAD = ["--import", "./shared/src/telemetry/register.ts"];

async function main(argv: string[]): Promise<number> {
  const values = parseCommandLine(
    {
      args: argv,
      options: {
        url: { type: "string" },
        key: { type: "string" },
        "database-url": { type: "string" },
        duration: { type: "string", default: "10" },
        warmup: { type: "string", default: "3" },
        connections: { type: "string", default: "10" },
        jobs: { type: "string", default: "500" },
        accounts: { type: "string", default: "1" },
        repeats: { type: "string", default: "3" },
        "log-level": { type: "string", default: "info" },
        only: { type: "string" },
        profile: { type: "boolean", default: false },
        out: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
    },
    USAGE,
  );
  if (typeof values === "number") return values;
  const counts = {
    duration: values.duration,
    warmup: values.warmup,
    connections: values.connections,
    jobs: values.jobs,
    accounts: values.accounts,
    repeats: values.repeats,
  };
  const bad = Object.entries(counts).find(([, raw]) => !Number.isInteger(Number(raw)) || Number(raw) < 0);
  if (bad) {
    process.stderr.write(`--${bad[0]} must be a whole number\n${USAGE}\n`);
    return 2;
  }
  const durationSeconds = Number(values.duration);
  const warmupSeconds = Number(values.warmup);
  const connections = Number(values.connections);
  const seededJobs = Math.max(1, Number(values.jobs));
  const accounts = Math.max(1, Number(values.accounts));
  const repeats = Math.max(1, Number(values.repeats));
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  // Other work on the machine skews the numbers: recorded with them.
  const loadAtStart = os.loadavg();
  const profileDir = path.join(RESULTS_DIR, `api-${stamp}-profile`);

  let service: EmbeddedService | undefined;
  let dataDir: string | undefined;
  try {
    let url = values.url;
    let databaseUrl = values["database-url"] ?? process.env.DATABASE_URL;
    if (!url) {
      dataDir = await makeWorkDir();
      console.error(`starting the API with embedded PostgreSQL in ${dataDir}`);
      if (values.profile) await mkdir(profileDir, { recursive: true });
      service = await startEmbeddedService({
        entry: "bench/src/api/api-process.ts",
        dataDir,
        // Previews have their own per-key rate, lifted like the keys' own.
        env: { LOG_LEVEL: values["log-level"], PREVIEW_RATE_LIMIT_PER_MINUTE: "100000" },
        nodeArgs: [...TELEMETRY_PRELOAD, ...(values.profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [])],
      });
      url = service.url;
      databaseUrl = service.databaseUrl;
    }
    const keys = values.key ? [values.key] : [];
    for (let i = keys.length; i < accounts; i++) {
      if (!databaseUrl) throw new Error("with --url, pass --key or --database-url (or set DATABASE_URL) to create benchmark keys");
      // Without concurrency or rate limits in the way of the load.
      keys.push(await createBenchKey(databaseUrl, { name: "api-bench", scopes: ["subtitles:write"], credits: 600, concurrency: 1_000_000_000, ratePerMinute: 1_000_000_000 }));
    }

    console.error(`seeding ${seededJobs} jobs on ${url}`);
    const jobs = await seedJobs(url, keys, seededJobs);
    const summaries: ScenarioSummary[] = [];
    const waits = new Map<string, WaitSample[]>();
    const only = values.only;
    // CPU per request is read from /proc for a service this benchmark started (the API's process tree: node and its PostgreSQL).
    const cpuNow = service ? () => treeCpuMs(service!.pid) : undefined;
    // The floor needs the service's database: the one this run started, or --database-url.
    const floorRuns = databaseUrl ? await startFloorRuns({ databaseUrl, keys, jobs, connections, durationSeconds, warmupSeconds }) : undefined;
    try {
    for (const scenario of apiScenarios(keys, jobs).filter((s) => !only || s.name.includes(only))) {
      if (warmupSeconds > 0) await runLoad(scenario, { url, connections, durationSeconds: warmupSeconds }, `${scenario.name} warm-up`);
      const sampler = values.profile && databaseUrl ? await startWaitSampler(databaseUrl) : undefined;
      const runs: ScenarioSummary["runs"] = [];
      for (let run = 1; run <= repeats; run++) {
        const before = await cpuNow?.();
        const measurement = await runLoad(scenario, { url, connections, durationSeconds }, repeats > 1 ? `${scenario.name} ${run}/${repeats}` : scenario.name);
        const after = await cpuNow?.();
        const perRequest = (ms: number) => (measurement.total > 0 ? ms / measurement.total : 0);
        runs.push({
          ...measurement,
          cpuMsPerRequest:
            before && after ? { api: perRequest(after.rootMs - before.rootMs), database: perRequest(after.descendantsMs - before.descendantsMs) } : null,
        });
        if (floorRuns?.has(scenario.name)) await floorRuns.run(scenario.name, `${scenario.name} ${run}/${repeats}`);
      }
      summaries.push(summarize(runs));
      if (sampler) waits.set(scenario.name, await sampler.stop());
    }

    } finally {
      await floorRuns?.stop();
    }
    const floor: FloorResult[] = floorRuns?.results(summaries) ?? [];
    const started = service && databaseUrl && dataDir ? { pid: service.pid, databaseUrl, dataDir } : undefined;
    const previews = await measurePreviews({ url, keys, jobs, only, connections, durationSeconds, warmupSeconds, started });

    console.log(`\nAPI benchmark: ${connections} connections, ${accounts} account(s), ${repeats} × ${durationSeconds} s per scenario (medians; min–max in brackets), ${os.cpus().length} CPUs, Node ${process.versions.node}${values.url ? `, service at ${url}` : ", embedded service"}`);
    console.log(`load average at start ${loadAtStart.map((n) => n.toFixed(2)).join(" ")}, at end ${os.loadavg().map((n) => n.toFixed(2)).join(" ")}`);
    for (const line of reportLines(summaries)) console.log(line);
    for (const m of summaries) if (m.unexpected > 0) console.log(`  ${m.name}: status codes ${JSON.stringify(m.runs.map((r) => r.statusCodes))}`);
    for (const line of floorReportLines(floor)) console.log(line);
    for (const line of previewReportLines(previews)) console.log(line);
    for (const [name, samples] of waits) {
      console.log(`\ndatabase sessions during ${name} (average number in each state):`);
      for (const w of samples.slice(0, 8)) console.log(`  ${w.averageSessions.toFixed(2).padStart(6)}  ${w.event}`);
    }

    await mkdir(RESULTS_DIR, { recursive: true });
    const file = values.out ? path.resolve(values.out) : path.join(RESULTS_DIR, `api-${stamp}.json`);
    const baseline = baselineOf(summaries);
    const machine = { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model, memory_gib: Math.round(os.totalmem() / 2 ** 30), node: process.versions.node };
    await writeFile(file, `${JSON.stringify({
      started_at: stamp,
      machine: { ...machine, load_average_at_start: loadAtStart, load_average_at_end: os.loadavg() },
      options: { url: values.url ?? "embedded", connections, duration_seconds: durationSeconds, warmup_seconds: warmupSeconds, repeats, seeded_jobs: seededJobs, accounts, log_level: values["log-level"] },
      scenarios: summaries.map((m) => ({
        ...m,
        ratio_to_baseline: baseline > 0 ? m.requestsPerSecond / baseline : null,
        targets: checkApiTargets(m),
        database_waits: waits.get(m.name) ?? null,
      })),
      floor: floor.map((r) => ({ name: r.name, floor: r.floor, ratio: r.ratio, p99_ratio: r.p99Ratio, targets: r.targets })),
      previews: previewResults(previews),
      profile_dir: values.profile && service ? profileDir : null,
    }, null, 2)}\n`);
    console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    return 1;
  } finally {
    await service?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
    if (values.profile && service) console.log(`CPU profile of the API: ${path.relative(process.cwd(), profileDir)} (summary: sh scripts/node24 bench/src/cli/profile-summary.ts <file>)`);
  }
}

process.exitCode = await main(process.argv.slice(2));
