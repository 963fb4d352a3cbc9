// `npm run bench [-- options]`: what a caption job costs on this machine, and how many fit in an hour.
// Everything is measured in one run, so the ratios hold on a noisy machine. Writes bench/results/<timestamp>.json,
// .md and .svg (and, while it runs, <timestamp>.partial.json with what is measured so far, kept if the run fails).
// A benchmark, not a test: prints PASS/FAIL per target and exits 0 either way (1 only if it could not run).
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Word } from "@caption/shared/api/transcript";
import { parseEnv } from "@caption/shared/config/env";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { createCliLogger } from "@caption/shared/runtime/logger";
import { REPO_ROOT } from "../repo-root.ts";
import { modelFolder } from "@caption/gpu-worker/asr";
import { probeMedia, detectHardwarePaths } from "@caption/gpu-worker/media";
import { makeWorkDir } from "../work-dir.ts";
import { measureApiThroughput } from "../pipeline/api-throughput.ts";
import { measureSpeechRecognition } from "../pipeline/asr-measure.ts";
import { benchFiles, machineInfo, type Measured } from "../pipeline/bench-files.ts";
import { planBench, stepLabel, videoKey, type BenchPlan } from "../pipeline/bench-plan.ts";
import type { BenchResult } from "../pipeline/bench-result.ts";
import { clipOf, makeBenchVideo, type BenchVideo } from "../pipeline/bench-videos.ts";
import { capacityTable } from "../pipeline/capacity.ts";
import { measureConcurrentJobs } from "../pipeline/concurrent-jobs.ts";
import { measureJobs } from "../pipeline/job-runs.ts";
import { checkTargets } from "../pipeline/pipeline-targets.ts";
import { sweepPresets } from "../pipeline/preset-sweep.ts";
import { transcribeForSweeps } from "../pipeline/sweep-words.ts";
import { ProgressBar } from "../pipeline/progress-bar.ts";

const USAGE = `usage: pipeline-bench [--full] [--presets a,b] [--orientation portrait|landscape] [--only sweep] [--repeat N] [--no-api] [--keep]
  --full              600 s videos too, and every preset on 60 s portrait and landscape clips, each also burned in
                      with libass (about 45 min on 2 cores); the quick run burns in only the job preset with libass
  --presets a,b       only these presets in the render sweep (default: all 16)
  --orientation O     portrait or landscape only (default: both)
  --only sweep        only the render sweeps and their libass burn-ins (no whole jobs, ASR or API), captioned with
                      the worker's engine's transcript of the sweep's clip
  --repeat N          render each preset of the sweep N times (default 1), interleaved with floor runs, and report
                      the median ratio to the floor with every render's beside it
  --no-api            skip the API throughput scenarios
  --keep              keep the work folder (service log, outputs) and print where it is`;
const RESULTS_DIR = path.join(REPO_ROOT, "bench/results");

async function main(argv: string[]): Promise<number> {
  const values = parseCommandLine(
    {
      args: argv,
      options: {
        full: { type: "boolean", default: false },
        presets: { type: "string" },
        "no-api": { type: "boolean", default: false },
        orientation: { type: "string" },
        only: { type: "string" },
        repeat: { type: "string" },
        keep: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
    },
    USAGE,
  );
  if (typeof values === "number") return values;
  let plan: BenchPlan;
  try {
    plan = planBench({ full: values.full, presets: values.presets, orientation: values.orientation, api: !values["no-api"], only: values.only, repeat: values.repeat });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }

  const startedAt = new Date();
  const loadAtStart = os.loadavg();
  const command = `npm run bench${argv.length > 0 ? ` -- ${argv.join(" ")}` : ""}`;
  const files = benchFiles(RESULTS_DIR, startedAt, command);
  const progress = new ProgressBar(plan.steps);
  const logger = createCliLogger("warn");
  const workDir = await makeWorkDir();
  try {
    const { encoder, decoder } = await detectHardwarePaths({ logger });
    const videos = new Map<string, BenchVideo>();
    for (const clip of plan.videos) {
      progress.start(stepLabel.video(clip));
      videos.set(videoKey(clip), await makeBenchVideo(clip.orientation, clip.seconds));
    }
    const measured: Measured = { jobs: [], asr: [], presets: [], concurrent: [], api: null };

    const env = parseEnv();
    const modelDir = modelFolder(env);
    let words: Word[];
    if (plan.sweepWords) {
      progress.start(stepLabel.sweepWords);
      words = await transcribeForSweeps(videos.get(videoKey(plan.sweepWords))!, { env, logger });
    } else {
      words = await measureJobs({
        plan,
        videos,
        workDir,
        encoder,
        decoder,
        progress,
        onRun: async (run) => {
          measured.jobs.push(run);
          await files.savePartial(measured);
        },
      });
    }

    for (const run of plan.concurrent) {
      progress.start(stepLabel.concurrent(run));
      measured.concurrent.push(
        await measureConcurrentJobs({ ...run, video: videos.get(videoKey(run.clip))!, workerConcurrency: run.workers, workDir, progress }),
      );
      await files.savePartial(measured);
    }

    if (plan.asr) {
      progress.start(stepLabel.asr);
      measured.asr = await measureSpeechRecognition({ video: videos.get(videoKey(plan.asr))!, modelDir, logger, onProgress: (f) => progress.advance(f) });
      await files.savePartial(measured);
    }

    for (const clip of plan.sweeps) {
      const video = videos.get(videoKey(clip))!;
      progress.start(stepLabel.sweep(clip));
      const media = await probeMedia(video.path);
      measured.presets.push(
        await sweepPresets({
          clip: clipOf(video),
          inputPath: video.path,
          media,
          words,
          encoder,
          decoder,
          workDir,
          presets: plan.presets,
          libassPresets: plan.libassPresets,
          repeat: plan.repeat,
          onStep: (_, fraction) => progress.advance(fraction),
        }),
      );
      await files.savePartial(measured);
    }

    if (plan.api) {
      progress.start(stepLabel.api);
      measured.api = await measureApiThroughput(workDir);
    }
    progress.finish();

    const result: BenchResult = {
      version: 1,
      mode: plan.full ? "full" : "quick",
      started_at: startedAt.toISOString(),
      finished_at: new Date().toISOString(),
      command,
      machine: await machineInfo(loadAtStart),
      encoder: encoder.encoder,
      decoder: decoder.decoder,
      ...measured,
      targets: checkTargets(measured),
      capacity: capacityTable({ ...measured, encoder: encoder.encoder }),
    };
    console.log(await files.write(result));
    console.log(`results: ${path.relative(process.cwd(), files.base)}.{json,md,svg}`);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    console.error(`what was measured before the failure: ${path.relative(process.cwd(), files.base)}.partial.json`);
    return 1;
  } finally {
    if (values.keep) console.error(`work folder kept: ${workDir}`);
    else await rm(workDir, { recursive: true, force: true, maxRetries: 5 });
  }
}

process.exitCode = await main(process.argv.slice(2));
