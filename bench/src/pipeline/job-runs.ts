import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Job } from "@caption/shared/api/job";
import type { Transcript, Word } from "@caption/shared/api/transcript";
import { probeMedia, type H264Encoder, type VideoDecoder } from "@caption/gpu-worker/media";
import { startTestHttpsServer } from "@caption/gpu-worker/testing";
import { createBenchKey } from "../bench-key.ts";
import { startServiceProcess, type ServiceProcess } from "../service-process.ts";
import { JOB_PRESET, stepLabel, videoKey, type BenchPlan } from "./bench-plan.ts";
import type { JobRun } from "./bench-result.ts";
import { clipOf, type BenchVideo } from "./bench-videos.ts";
import { measureFloor } from "./floor-encode.ts";
import type { ProgressBar } from "./progress-bar.ts";
import { sampleTreeMemory } from "./tree-memory.ts";

const POLL_MS = 250;

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
 * followed by the floor re-encode of its video. Returns the speech engine the worker loaded and the words of
 * the first transcript (the render sweeps caption with them).
 */
export async function measureJobs(options: JobRunsOptions): Promise<{ engine: string; words: Word[] }> {
  const { plan, videos, progress } = options;
  const https = await startTestHttpsServer();
  try {
    for (const [key, video] of videos) https.serveFile(`/${key}.mp4`, video.path, "video/mp4");
    progress.start(stepLabel.service);
    const dataDir = path.join(options.workDir, "service");
    await mkdir(dataDir, { mode: 0o755 });
    const service = await startServiceProcess({
      entry: "scripts/embedded.ts",
      dataDir,
      env: { LOG_LEVEL: "info", ALLOW_PRIVATE_VIDEO_URLS: "true", NODE_EXTRA_CA_CERTS: https.caCertPath, WORKER_CONCURRENCY: "1" },
    });
    try {
      const engine = String((await service.waitForLine((entry) => entry.msg === "speech engine ready")).engine);
      const credits = plan.jobs.reduce((sum, clip) => sum + clip.seconds + 2, 0);
      const key = await createBenchKey(service.databaseUrl, { name: "bench", scopes: ["subtitles:write"], credits, concurrency: 4 });
      let words: Word[] = [];
      for (const clip of plan.jobs) {
        const video = videos.get(videoKey(clip))!;
        progress.start(stepLabel.job(clip));
        const memory = sampleTreeMemory(service.pid, { exclude: (command) => command === "postgres" });
        const started = performance.now();
        const id = await submitJob(service, key, { video_url: https.url(`/${videoKey(clip)}.mp4`), preset: JOB_PRESET });
        const job = await waitForJob(service, key, id, (percent) => progress.advance(percent / 100));
        const wallMs = Math.round(performance.now() - started);
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
          floor,
        });
      }
      return { engine, words };
    } finally {
      await service.stop();
    }
  } finally {
    await https.close();
  }
}

async function submitJob(service: ServiceProcess, key: string, body: unknown): Promise<string> {
  const response = await fetch(`${service.url}/v1/subtitles`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  const job = (await response.json()) as { id?: unknown };
  if (response.status !== 202 || typeof job.id !== "string") throw new Error(`submission refused: ${response.status} ${JSON.stringify(job)}`);
  return job.id;
}

/** Polls until the job is terminal, every 250 ms, as a brisk client would. */
async function waitForJob(service: ServiceProcess, key: string, id: string, onProgress: (percent: number) => void): Promise<Job> {
  for (;;) {
    const response = await fetch(`${service.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } });
    const job = (await response.json()) as Job;
    if (response.status !== 200) throw new Error(`GET /v1/jobs/${id} → ${response.status} ${JSON.stringify(job)}`);
    onProgress(job.progress);
    if (job.status === "completed" || job.status === "failed" || job.status === "canceled") return job;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
