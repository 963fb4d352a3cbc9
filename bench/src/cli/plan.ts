// `npm run plan -- --videos-per-hour N [--mix 60:80,600:20] [--setup cpu|cpu-concurrent|nvenc|h100] [--from bench/results/X.json] [--json]`
// What a load needs, worked from a bench result (the newest in bench/results/ unless --from names one).
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Value } from "@sinclair/typebox/value";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { REPO_ROOT } from "../repo-root.ts";
import { BenchResultSchema, type BenchResult } from "../pipeline/bench-result.ts";
import { parseMix, planCapacity, SETUPS, type Plan, type Setup } from "../plan/capacity-plan.ts";

const USAGE = `usage: npm run plan -- --videos-per-hour N [options]
  --videos-per-hour N   videos submitted per hour at the planned rate
  --mix S:SHARE,...     video lengths in seconds and their shares (default 60:100; e.g. 30:50,120:40,600:10)
  --setup NAME          ${Object.entries(SETUPS).map(([name, s]) => `${name} (${s.label})`).join(", ")}; default cpu
  --orientation O       portrait or landscape (default portrait)
  --utilisation U       share of the time workers and APIs should be busy at that rate (default 0.7)
  --peak-factor F       KEDA's and the HPA's maximum as a multiple of what the rate needs (default 2)
  --min-workers N       KEDA's minimum (default 1; 0 scales to zero when idle)
  --from FILE           the bench result to read (default: the newest bench/results/*.json)
  --json                print the plan as JSON`;
const RESULTS = path.join(REPO_ROOT, "bench", "results");

async function newestResult(): Promise<string> {
  const files = (await readdir(RESULTS).catch(() => [] as string[])).filter((f) => f.endsWith(".json") && !f.endsWith(".partial.json")).sort();
  const newest = files.at(-1);
  if (!newest) throw new Error(`no bench result in ${path.relative(process.cwd(), RESULTS)}/: run \`npm run bench\` first (about 10 minutes), or pass --from`);
  return path.join(RESULTS, newest);
}

const number = (name: string, text: string | undefined, fallback: number, check: (n: number) => boolean) => {
  const n = text === undefined ? fallback : Number(text);
  if (!Number.isFinite(n) || !check(n)) throw new Error(`--${name} "${text}" is out of range`);
  return n;
};

function print(plan: Plan, from: string, videosPerHour: number): void {
  const one = (n: number) => n.toFixed(1);
  console.log(`from ${from}: ${plan.row.setup} (${plan.row.kind}), ${plan.row.videos_per_hour_60s} × 60 s or ${plan.row.videos_per_hour_600s} × 600 s videos an hour per worker`);
  for (const part of plan.perVideo) console.log(`  a ${part.seconds} s video (${Math.round(part.share * 100)}% of them): ${one(part.workerSeconds)} worker-seconds`);
  console.log(`${videosPerHour} videos an hour keep ${one(plan.busyWorkers)} workers busy`);
  console.log(`workers:        ${plan.workers}${plan.gpus === null ? "" : ` (${plan.gpus} GPUs, one worker each)`}, WORKER_CONCURRENCY=${plan.concurrency}`);
  console.log(`KEDA:           minReplicaCount ${plan.keda.minReplicaCount}, maxReplicaCount ${plan.keda.maxReplicaCount}, ${plan.keda.jobsPerReplica} job(s) per replica`);
  console.log(`API replicas:   ${plan.api.replicas} (HPA up to ${plan.api.maxReplicas}); about ${one(plan.api.requestsPerSecond)} requests/s${plan.api.perProcess ? ` against ${Math.round(plan.api.perProcess)}/s one API process served in the bench` : " (the result has no API figures)"}`);
  console.log(`PostgreSQL:     up to ${plan.postgres.connections} connections (${plan.postgres.breakdown}); max_connections above that`);
}

async function main(argv: string[]): Promise<number> {
  const values = parseCommandLine(
    {
      args: argv,
      options: {
        "videos-per-hour": { type: "string" },
        mix: { type: "string", default: "60:100" },
        setup: { type: "string", default: "cpu" },
        orientation: { type: "string", default: "portrait" },
        utilisation: { type: "string" },
        "peak-factor": { type: "string" },
        "min-workers": { type: "string" },
        from: { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    },
    USAGE,
  );
  if (typeof values === "number") return values;
  try {
    if (!(values.setup in SETUPS)) throw new Error(`--setup must be one of ${Object.keys(SETUPS).join(", ")}`);
    if (values.orientation !== "portrait" && values.orientation !== "landscape") throw new Error("--orientation must be portrait or landscape");
    if (values["videos-per-hour"] === undefined) throw new Error("--videos-per-hour is required");
    const from = values.from ?? (await newestResult());
    const result: unknown = JSON.parse(await readFile(from, "utf8"));
    if (!Value.Check(BenchResultSchema, result)) throw new Error(`${from} is not a bench result (bench/src/pipeline/bench-result.ts)`);
    const videosPerHour = number("videos-per-hour", values["videos-per-hour"], 0, (n) => n > 0);
    const plan = planCapacity({
      result: result as BenchResult,
      videosPerHour,
      mix: parseMix(values.mix),
      setup: values.setup as Setup,
      orientation: values.orientation,
      utilisation: number("utilisation", values.utilisation, 0.7, (n) => n > 0 && n <= 1),
      peakFactor: number("peak-factor", values["peak-factor"], 2, (n) => n >= 1),
      minWorkers: number("min-workers", values["min-workers"], 1, (n) => Number.isInteger(n) && n >= 0),
    });
    if (values.json) console.log(JSON.stringify(plan, null, 2));
    else print(plan, path.relative(process.cwd(), from), videosPerHour);
    return 0;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
