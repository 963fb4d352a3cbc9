import path from "node:path";
import { createBenchKey } from "../bench-key.ts";
import { submitJob, waitForJob, withBenchService } from "./bench-service.ts";
import { JOB_PRESET, videoKey, type ClipSpec } from "./bench-plan.ts";
import type { ConcurrentRun } from "./bench-result.ts";
import { perHour } from "./capacity.ts";
import { clipOf, type BenchVideo } from "./bench-videos.ts";
import type { ProgressBar } from "./progress-bar.ts";

/**
 * Throughput, not latency: `jobs` copies of one video submitted at once to a worker that runs
 * `workerConcurrency` of them at a time, timed from the first submission to the last completion.
 */
export async function measureConcurrentJobs(options: {
  clip: ClipSpec;
  video: BenchVideo;
  jobs: number;
  workerConcurrency: number;
  workDir: string;
  progress: ProgressBar;
}): Promise<ConcurrentRun> {
  const { clip, video, jobs, workerConcurrency, progress } = options;
  const videos = new Map([[videoKey(clip), video]]);
  const dataDir = path.join(options.workDir, `service-concurrency-${workerConcurrency}-${clip.seconds}`);
  return withBenchService({ videos, dataDir, workerConcurrency }, async ({ service, videoUrl }) => {
    const key = await createBenchKey(service.databaseUrl, { name: "bench-concurrency", scopes: ["subtitles:write"], credits: jobs * (clip.seconds + 2), concurrency: jobs });
    const done = new Array<number>(jobs).fill(0);
    const started = performance.now();
    const ids = await Promise.all(Array.from({ length: jobs }, () => submitJob(service, key, { video_url: videoUrl(videoKey(clip)), preset: JOB_PRESET })));
    const finished = await Promise.all(
      ids.map((id, i) =>
        waitForJob(service, key, id, (percent) => {
          done[i] = percent / 100;
          progress.advance(done.reduce((a, b) => a + b, 0) / jobs);
        }),
      ),
    );
    const wallMs = Math.round(performance.now() - started);
    const failed = finished.find((job) => job.status !== "completed");
    if (failed) throw new Error(`job ${failed.id} ended ${failed.status}: ${JSON.stringify(failed.error)}; see ${service.logFile}`);
    return {
      clip: clipOf(video),
      preset: JOB_PRESET,
      worker_concurrency: workerConcurrency,
      jobs,
      wall_ms: wallMs,
      videos_per_hour: perHour(wallMs / 1000 / jobs),
    };
  });
}
