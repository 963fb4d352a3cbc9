// `npm run bench:caption`: what `npm run caption` adds to the job itself on a 60 s clip. Each run's wall time
// (spawn of `npm run caption` to its exit: embedded service start, upload, downloads and stop included) against
// its job's own time (the API's event times, queued to completed). Baseline in the same run: the same command
// joining an `npm start` service that is already running (nothing to start or stop). Target: ≤ 3 s added.
// A benchmark, not a test: prints the figures, exits 0 (1 only if a run failed).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { rm } from "node:fs/promises";
import path from "node:path";
import { startEmbeddedService } from "@caption/control-plane/testing";
import { makeSpeechVideo } from "@caption/gpu-worker/testing";
import { REPO_ROOT } from "../repo-root.ts";
import { makeWorkDir } from "../work-dir.ts";
import { median } from "../api/scenario-summary.ts";

const COLD_RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TARGET_ADDED_SECONDS = 3;

interface Run {
  wall: number;
  job: number;
  service: string;
  serviceSeconds: number;
  upload: number;
  download: number;
  /** Outside the command's own clock: npm, Node's start and module loading, and the embedded service's stop. */
  outside: number;
}

async function caption(clip: string, dataDir: string): Promise<Run> {
  const started = performance.now();
  const child = spawn("npm", ["run", "-s", "caption", "--", clip, "--json", "--out", path.join(dataDir, "out")], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATA_DIR: dataDir, CAPTION_API_URL: "", CAPTION_API_KEY: "" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const [code] = (await once(child, "close")) as [number];
  const wall = (performance.now() - started) / 1000;
  const outcome = JSON.parse(stdout) as {
    job_seconds?: number;
    service?: string;
    service_seconds?: number;
    upload_seconds?: number;
    download_seconds?: number;
    wall_seconds?: number;
  };
  if (code !== 0 || outcome.job_seconds === undefined) throw new Error(`npm run caption exited ${code}: ${stdout}`);
  return {
    wall,
    job: outcome.job_seconds,
    service: outcome.service ?? "?",
    serviceSeconds: outcome.service_seconds ?? 0,
    upload: outcome.upload_seconds ?? 0,
    download: outcome.download_seconds ?? 0,
    outside: wall - (outcome.wall_seconds ?? 0),
  };
}

const row = (label: string, run: Run) =>
  `${label.padEnd(22)} wall ${run.wall.toFixed(2).padStart(6)} s  job ${run.job.toFixed(2).padStart(6)} s  added ${(run.wall - run.job).toFixed(2).padStart(5)} s` +
  `  (service ${run.service} after ${run.serviceSeconds.toFixed(2)} s, upload ${run.upload.toFixed(2)} s, downloads ${run.download.toFixed(2)} s,` +
  ` npm + start-up + stop ${run.outside.toFixed(2)} s)`;

const dataDir = await makeWorkDir();
let failed = false;
try {
  const clip = await makeSpeechVideo({
    text: "This is a sixty second clip for measuring what the caption command adds to the job itself. ".repeat(6),
    width: 640,
    height: 360,
    fps: 25,
    durationSeconds: 60,
  });
  console.log(`clip: ${clip.durationSeconds.toFixed(1)} s 640x360 25 fps; DATA_DIR ${dataDir}`);
  // The first start of a data directory creates its database (initdb): a one-off, reported apart.
  const first = await caption(clip.path, dataDir);
  console.log(row("first (initdb)", first));
  const cold: Run[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    cold.push(await caption(clip.path, dataDir));
    console.log(row(`embedded start #${i + 1}`, cold.at(-1) as Run));
  }
  // Baseline: an `npm start` service already running on the data directory, joined by the command.
  const service = await startEmbeddedService({ entry: "embedded", dataDir });
  const joined: Run[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      joined.push(await caption(clip.path, dataDir));
      console.log(row(`joined npm start #${i + 1}`, joined.at(-1) as Run));
    }
  } finally {
    await service.stop();
  }
  const added = median(cold.map((run) => run.wall - run.job));
  const addedJoined = median(joined.map((run) => run.wall - run.job));
  const warmJob = median(joined.map((run) => run.job));
  console.log(`\nmedian added by npm run caption with its own embedded service: ${added.toFixed(2)} s (target ≤ ${TARGET_ADDED_SECONDS} s: ${added <= TARGET_ADDED_SECONDS ? "met" : "NOT met"})`);
  console.log(`median added when joining a running npm start (baseline): ${addedJoined.toFixed(2)} s`);
  console.log(`job time: embedded median ${median(cold.map((run) => run.job)).toFixed(2)} s vs joined ${warmJob.toFixed(2)} s (${(median(cold.map((run) => run.job)) / warmJob).toFixed(2)}x)`);
  console.log(`embedded wall vs joined job: ${median(cold.map((run) => run.wall)).toFixed(2)} s vs ${warmJob.toFixed(2)} s (+${(median(cold.map((run) => run.wall)) - warmJob).toFixed(2)} s)`);
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
