// `npm run bench [-- options]`: what a caption job costs on this machine, and how many fit in an hour.
//   --full              600 s videos too, and every preset on 60 s portrait and landscape clips, each also burned in
//                       with libass (about 45 min on 2 cores); the quick run burns in only the job preset with libass
//   --presets a,b       only these presets in the render sweep (default: all 16)
//   --orientation O     portrait or landscape only (default: both)
//   --no-api            skip the API throughput scenarios
//   --keep              keep the work folder (service log, outputs) and print where it is
// Everything is measured in one run, so the ratios hold on a noisy machine. Writes bench/results/<timestamp>.json,
// .md and .svg (and, while it runs, <timestamp>.partial.json with what is measured so far, kept if the run fails).
// A benchmark, not a test: prints PASS/FAIL per target and exits 0 either way (1 only if it could not run).
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { Value } from "@sinclair/typebox/value";
import pino from "pino";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import type { Transcript } from "@caption/shared/api/transcript";
import { parseEnv } from "@caption/shared/config/env";
import { startTestHttpsServer } from "../../../gpu-worker/src/testing/https-server.ts";
import { REPO_ROOT } from "@caption/test/fixtures/repo-paths";
import { modelFolder } from "../../../gpu-worker/src/asr/model-folder.ts";
import { detectHardwarePaths } from "../../../gpu-worker/src/media/hardware-paths.ts";
import { probeMedia } from "../../../gpu-worker/src/media/ffprobe.ts";
import { asrCandidates, measureAsr } from "../pipeline/asr-measure.ts";
import { BenchResultSchema, type ApiScenario, type BenchResult, type Clip } from "../pipeline/bench-result.ts";
import { makeBenchVideo, type BenchVideo, type Orientation } from "../pipeline/bench-videos.ts";
import { capacityTable } from "../pipeline/capacity.ts";
import { measureFloor } from "../pipeline/floor-encode.ts";
import { checkTargets } from "../pipeline/pipeline-targets.ts";
import { ProgressBar, type PlannedStep } from "../pipeline/progress-bar.ts";
import { sweepPresets } from "../pipeline/preset-sweep.ts";
import { startServiceProcess } from "../service-process.ts";
import { stageChartSvg } from "../pipeline/stage-chart-svg.ts";
import { summaryMarkdown } from "../pipeline/summary-markdown.ts";
import { sampleTreeMemory } from "../pipeline/tree-memory.ts";

const { values } = parseArgs({
  options: {
    full: { type: "boolean", default: false },
    presets: { type: "string" },
    "no-api": { type: "boolean", default: false },
    orientation: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});

const JOB_PRESET: PresetId = "highlight";
const resultsDir = path.join(REPO_ROOT, "bench/results");
const startedAt = new Date();
const stamp = startedAt.toISOString().replace(/[:.]/g, "-");
const loadAtStart = os.loadavg();
const presets = values.presets ? parsePresets(values.presets) : [...PRESET_IDS];
const libassPresets = values.full ? presets : presets.filter((preset) => preset === JOB_PRESET);

function parsePresets(list: string): PresetId[] {
  const chosen = list.split(",").map((p) => p.trim());
  const unknown = chosen.filter((p) => !(PRESET_IDS as readonly string[]).includes(p));
  if (unknown.length > 0) throw new Error(`unknown preset(s) ${unknown.join(", ")}; known: ${PRESET_IDS.join(", ")}`);
  return chosen as PresetId[];
}

interface Plan {
  jobs: { orientation: Orientation; seconds: number }[];
  sweeps: { orientation: Orientation; seconds: number }[];
  asrSeconds: number;
}
const plan: Plan = values.full
  ? {
      jobs: [{ orientation: "portrait", seconds: 60 }, { orientation: "landscape", seconds: 60 }, { orientation: "portrait", seconds: 600 }, { orientation: "landscape", seconds: 600 }],
      sweeps: [{ orientation: "portrait", seconds: 60 }, { orientation: "landscape", seconds: 60 }],
      asrSeconds: 600,
    }
  : {
      jobs: [{ orientation: "portrait", seconds: 60 }, { orientation: "landscape", seconds: 60 }],
      sweeps: [{ orientation: "portrait", seconds: 30 }],
      asrSeconds: 60,
    };

if (values.orientation !== undefined) {
  if (values.orientation !== "portrait" && values.orientation !== "landscape") throw new Error("--orientation must be portrait or landscape");
  const only = (item: { orientation: Orientation }) => item.orientation === values.orientation;
  plan.jobs = plan.jobs.filter(only);
  plan.sweeps = plan.sweeps.filter(only);
}
// Speech recognition runs on the portrait video's audio; the landscape video's is the same.
const asrOrientation: Orientation = values.orientation === "landscape" ? "landscape" : "portrait";

const clipOf = (video: BenchVideo): Clip => ({ orientation: video.orientation, width: video.width, height: video.height, duration_seconds: video.durationSeconds });
const videoKey = (orientation: Orientation, seconds: number) => `${orientation}-${seconds}`;
const label = {
  video: (o: Orientation, s: number) => `make ${o} ${s} s video`,
  job: (o: Orientation, s: number) => `job via the API: ${o} ${s} s`,
  floor: (o: Orientation, s: number) => `floor re-encode: ${o} ${s} s`,
  sweep: (o: Orientation, s: number) => `render sweep: ${o} ${s} s`,
};
// Each distinct video the plan uses, made once.
const videoSpecs = [...new Map([...plan.jobs, ...plan.sweeps, { orientation: asrOrientation, seconds: plan.asrSeconds }].map((v) => [videoKey(v.orientation, v.seconds), v])).values()];
// Weights: rough seconds on a 2-core machine per second of 1080p video.
const steps: PlannedStep[] = [
  ...videoSpecs.map((v) => ({ label: label.video(v.orientation, v.seconds), weight: v.seconds * 0.3 })),
  { label: "start the service", weight: 10 },
  ...plan.jobs.flatMap((j) => [{ label: label.job(j.orientation, j.seconds), weight: j.seconds * 0.7 }, { label: label.floor(j.orientation, j.seconds), weight: j.seconds * 0.4 }]),
  { label: "speech recognition", weight: plan.asrSeconds * 0.5 },
  ...plan.sweeps.map((s) => ({ label: label.sweep(s.orientation, s.seconds), weight: s.seconds * 0.45 * (presets.length + libassPresets.length + 2) })),
  ...(values["no-api"] ? [] : [{ label: "API throughput", weight: 40 }]),
];
const progress = new ProgressBar(steps);
const logger = pino({ level: "warn" }, pino.destination(2));

async function runApiBench(workDir: string): Promise<ApiScenario[]> {
  const out = path.join(workDir, "api.json");
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "api-bench.ts"), "--duration", "5", "--warmup", "2", "--jobs", "200", "--log-level", "warn", "--out", out], { stdio: ["ignore", "ignore", "inherit"] });
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`the API benchmark exited with ${code}`);
  const report = JSON.parse(await readFile(out, "utf8")) as { scenarios: { name: string; requestsPerSecond: number; latencyMs: { p50: number; p99: number } }[] };
  return report.scenarios.map((s) => ({ name: s.name, requests_per_second: s.requestsPerSecond, p50_ms: s.latencyMs.p50, p99_ms: s.latencyMs.p99 }));
}

async function ffmpegVersion(): Promise<string> {
  const { stdout } = await promisify(execFile)("ffmpeg", ["-version"]);
  return stdout.split("\n")[0]?.replace(/^ffmpeg version (\S+).*$/, "$1") ?? "unknown";
}

const base = path.join(resultsDir, stamp);
const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`;
// What is measured so far, on disk after each section: a failure late in a long run loses nothing measured.
const measured: Pick<BenchResult, "jobs" | "asr" | "presets" | "api"> = { jobs: [], asr: [], presets: [], api: null };
async function savePartial(): Promise<void> {
  await mkdir(resultsDir, { recursive: true });
  await writeFile(`${base}.partial.json`, `${JSON.stringify({ started_at: startedAt.toISOString(), command, ...measured }, null, 2)}\n`);
}

const workDir = await mkdtemp(path.join(os.tmpdir(), "caption-bench-"));
// Run as root, embedded PostgreSQL initialises its cluster as the postgres user.
await chmod(workDir, 0o755);
try {
  const { encoder, decoder } = await detectHardwarePaths({ logger });
  const videos = new Map<string, BenchVideo>();
  for (const { orientation, seconds } of videoSpecs) {
    progress.start(label.video(orientation, seconds));
    videos.set(videoKey(orientation, seconds), await makeBenchVideo(orientation, seconds));
  }
  const videoFor = (o: Orientation, s: number) => videos.get(videoKey(o, s))!;

  // Whole jobs, through the service as `npm start` runs it, fetching from an HTTPS server on loopback.
  const https = await startTestHttpsServer();
  let words: Transcript["words"] = [];
  let engine = "unknown";
  try {
    for (const [key, video] of videos) https.serveFile(`/${key}.mp4`, video.path, "video/mp4");
    progress.start("start the service");
    const serviceDir = path.join(workDir, "service");
    await mkdir(serviceDir, { mode: 0o755 });
    const service = await startServiceProcess({ dataDir: serviceDir, env: { ALLOW_PRIVATE_VIDEO_URLS: "true", NODE_EXTRA_CA_CERTS: https.caCertPath, WORKER_CONCURRENCY: "1" } });
    try {
      engine = service.engine;
      const apiKey = await service.createKey(plan.jobs.reduce((sum, j) => sum + j.seconds + 2, 0));
      for (const { orientation, seconds } of plan.jobs) {
        const video = videoFor(orientation, seconds);
        progress.start(label.job(orientation, seconds));
        const memory = sampleTreeMemory(service.pid, { exclude: (command) => command === "postgres" });
        const started = performance.now();
        const id = await service.submit(apiKey, { video_url: https.url(`/${videoKey(orientation, seconds)}.mp4`), preset: JOB_PRESET });
        const job = await service.waitForJob(apiKey, id, (percent) => progress.advance(percent / 100));
        const wallMs = Math.round(performance.now() - started);
        const peak = await memory.stop();
        if (job.status !== "completed") throw new Error(`job ${id} ended ${job.status}: ${JSON.stringify(job.error)}; see ${service.logFile}`);
        const completion = await service.completionOf(id);
        if (words.length === 0 && job.subtitles.transcript_url) words = ((await (await fetch(job.subtitles.transcript_url)).json()) as Transcript).words;
        progress.start(label.floor(orientation, seconds));
        const media = await probeMedia(video.path);
        const floor = await measureFloor({ media, encoder, decoder, inputPath: video.path, outputPath: path.join(workDir, "floor.mp4"), onProgress: (f) => progress.advance(f) });
        measured.jobs.push({ clip: clipOf(video), preset: JOB_PRESET, wall_ms: wallMs, stage_ms: completion.stageMs, peak_rss_bytes: peak.peakBytes, rss_at_peak: peak.atPeak, frames_drawn: completion.framesDrawn, floor });
        await savePartial();
      }
    } finally {
      await service.stop();
    }
  } finally {
    await https.close();
  }

  progress.start("speech recognition");
  const asrVideo = videoFor(asrOrientation, plan.asrSeconds);
  for (const candidate of asrCandidates({ modelDir: modelFolder(parseEnv()), logger })) {
    const run = await measureAsr(candidate, asrVideo.path, (f) => progress.advance(f), asrVideo.durationSeconds);
    if (run) measured.asr.push(run);
  }
  await savePartial();

  for (const { orientation, seconds } of plan.sweeps) {
    const video = videoFor(orientation, seconds);
    const stepLabel = label.sweep(orientation, seconds);
    progress.start(stepLabel);
    measured.presets.push(
      await sweepPresets({
        clip: clipOf(video),
        inputPath: video.path,
        media: await probeMedia(video.path),
        words,
        encoder,
        decoder,
        workDir,
        presets,
        libassPresets,
        onStep: (_, fraction) => progress.advance(fraction),
      }),
    );
    await savePartial();
  }

  if (!values["no-api"]) {
    progress.start("API throughput");
    measured.api = await runApiBench(workDir);
  }
  progress.finish();

  const result: BenchResult = {
    version: 1,
    mode: values.full ? "full" : "quick",
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    command,
    machine: {
      cpus: os.availableParallelism(),
      cpu_model: os.cpus()[0]?.model ?? "unknown",
      memory_gib: Math.round(os.totalmem() / 2 ** 30),
      node: process.versions.node,
      ffmpeg: await ffmpegVersion(),
      load_average_at_start: loadAtStart,
      load_average_at_end: os.loadavg(),
    },
    encoder: encoder.encoder,
    decoder: decoder.decoder,
    ...measured,
    targets: checkTargets({ ...measured, engine }),
    capacity: capacityTable({ ...measured, encoder: encoder.encoder }),
  };
  if (!Value.Check(BenchResultSchema, result)) throw new Error(`result does not match its schema: ${JSON.stringify([...Value.Errors(BenchResultSchema, result)].slice(0, 3))}`);
  await mkdir(resultsDir, { recursive: true });
  await writeFile(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(`${base}.svg`, stageChartSvg(result, engine));
  const markdown = summaryMarkdown(result, `${stamp}.svg`);
  await writeFile(`${base}.md`, markdown);
  console.log(markdown);
  await rm(`${base}.partial.json`, { force: true });
  console.log(`results: ${path.relative(process.cwd(), base)}.{json,md,svg}`);
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  console.error(`what was measured before the failure: ${path.relative(process.cwd(), base)}.partial.json`);
  process.exitCode = 1;
} finally {
  if (values.keep) console.error(`work folder kept: ${workDir}`);
  else await rm(workDir, { recursive: true, force: true, maxRetries: 5 });
}
