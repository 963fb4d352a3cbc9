import path from "node:path";
import type { Transcript, Word } from "@caption/shared/api/transcript";
import { probeMedia, type H264Encoder, type VideoDecoder } from "@caption/gpu-worker/media";
import { createBenchKey } from "../bench-key.ts";
import { submitJob, waitForJob, withBenchService } from "./bench-service.ts";
import { JOB_PRESET, stepLabel, videoKey, type BenchPlan } from "./bench-plan.ts";
import type { JobRun } from "./bench-result.ts";
import { clipOf, type BenchVideo } from "./bench-videos.ts";
import { measureFloor } from "./floor-encode.ts";
import type { ProgressBar } from "./progress-bar.ts";
import { toolCpuLog } from "./tool-cpu.ts";
import { treeCpuMs, type TreeCpu } from "./tree-cpu.ts";
import { sampleTreeMemory } from "./tree-memory.ts";

export interface JobRunsOptions {
  plan: BenchPlan;
  videos: ReadonlyMap<string, BenchVideo>;
  workDir: string;
  encoder: H264Encoder;
  decoder: VideoDecoder;
  progress: ProgressBar;
  /** Hears of each job as soon as it is measured. */
  onRun(run: JobRun): Promise<void>;
}

/**
 * Whole jobs through the service as `npm start` runs it, fetching from an HTTPS server on loopback, each
 * followed by the floor re-encode of its video. Returns the words of the first transcript (the render sweeps
 * caption with them).
 */
export async function measureJobs(options: JobRunsOptions): Promise<Word[]> {
  const { plan, videos, progress } = options;
  progress.start(stepLabel.service);
  const tools = await toolCpuLog(options.workDir);
  return withBenchService({ videos, dataDir: path.join(options.workDir, "service"), workerConcurrency: 1, env: tools.env }, async ({ service, videoUrl }) => {
    // Ready to take jobs: the first one's time leaves out loading the engine.
    await service.waitForLine((entry) => entry.msg === "speech engine ready");
    const credits = plan.jobs.reduce((sum, clip) => sum + clip.seconds + 2, 0);
    const key = await createBenchKey(service.databaseUrl, { name: "bench", scopes: ["subtitles:write"], credits, concurrency: 4 });
    let words: Word[] = [];
    for (const clip of plan.jobs) {
      const video = videos.get(videoKey(clip))!;
      progress.start(stepLabel.job(clip));
      const memory = sampleTreeMemory(service.pid, { exclude: (command) => command === "postgres" });
      const cpuBefore = await treeCpuMs(service.pid);
      const { runs: toolRunsBefore } = await tools.read();
      const started = performance.now();
      const id = await submitJob(service, key, { video_url: videoUrl(videoKey(clip)), preset: JOB_PRESET });
      const job = await waitForJob(service, key, id, (percent) => progress.advance(percent / 100));
      const wallMs = Math.round(performance.now() - started);
      const cpuAfter = await treeCpuMs(service.pid);
      const toolCpu = (await tools.read(toolRunsBefore)).byPart;
      const peak = await memory.stop();
      if (job.status !== "completed") throw new Error(`job ${id} ended ${job.status}: ${JSON.stringify(job.error)}; see ${service.logFile}`);
      const completion = await service.waitForLine((entry) => entry.msg === "job completed" && entry.job_id === id);
      if (words.length === 0 && job.subtitles.transcript_url) words = ((await (await fetch(job.subtitles.transcript_url)).json()) as Transcript).words;
      progress.start(stepLabel.floor(clip));
      const media = await probeMedia(video.path);
      const floor = await measureFloor({ media, encoder: options.encoder, decoder: options.decoder, inputPath: video.path, outputPath: path.join(options.workDir, "floor.mp4"), onProgress: (f) => progress.advance(f) });
      await options.onRun({
        clip: clipOf(video),
        preset: JOB_PRESET,
        wall_ms: wallMs,
        // The worker's "job completed" line: what each stage took, in milliseconds.
        stage_ms: (completion.stage_ms ?? {}) as Record<string, number>,
        peak_rss_bytes: peak.peakBytes,
        rss_at_peak: peak.atPeak,
        frames_drawn: Number(completion.frames_drawn ?? 0),
        cpu_ms: Math.round(cpuAfter.rootMs + cpuAfter.descendantsMs - cpuBefore.rootMs - cpuBefore.descendantsMs),
        cpu_parts_ms: cpuParts(cpuBefore, cpuAfter, toolCpu),
        floor,
      });
    }
    return words;
  });
}

/**
 * A job's CPU by part: the service's node process, each command under it, and the tools it ran (inside what the
 * node process reaped) by what they were for; what else it reaped (the tools' wrappers) as the rest.
 */
export function cpuParts(before: TreeCpu, after: TreeCpu, tools: Record<string, number>): Record<string, number> {
  const parts: Record<string, number> = { "node (API and worker)": after.rootMs - before.rootMs };
  for (const [command, ms] of Object.entries(after.byCommand)) parts[command] = ms - (before.byCommand[command] ?? 0);
  const reaped = Object.keys(after.byCommand).find((command) => command.startsWith("reaped by "));
  const toolsMs = Object.values(tools).reduce((sum, ms) => sum + ms, 0);
  if (reaped !== undefined) {
    parts["other processes node ran (the tools' wrappers)"] = parts[reaped]! - toolsMs;
    delete parts[reaped];
  }
  for (const [part, ms] of Object.entries(tools)) parts[`tools: ${part}`] = ms;
  return Object.fromEntries(Object.entries(parts).filter(([, ms]) => ms > 0).map(([part, ms]) => [part, Math.round(ms)]));
}
