import { FRAME_RATE } from "./bench-videos.ts";
import type { CapacityRow, ConcurrentRun, JobRun, PresetSweep } from "./bench-result.ts";

/**
 * Assumptions behind the GPU projections; none is measured here. They are inputs, printed with the table,
 * so an operator can redo the arithmetic with their own card's figures.
 */
export const GPU_ASSUMPTIONS = {
  /** H.264 1080p30 encode with h264_nvenc preset p4, one session, on an NVENC-equipped data-centre card (L4/A10 class). */
  nvencFramesPerSecond1080p: 400,
  /** sherpa-onnx with the CUDA execution provider: seconds of work per second of audio. */
  gpuAsrRealTimeFactor: 0.02,
} as const;

const tenths = (value: number) => Math.round(value * 10) / 10;
/** Videos an hour at `seconds` each, to a tenth. */
export const perHour = (seconds: number) => tenths(3600 / seconds);
const longestJob = (jobs: readonly JobRun[]) => jobs.reduce((a, b) => (a.clip.duration_seconds >= b.clip.duration_seconds ? a : b));

/**
 * Videos per hour per worker: one job at a time, and several at a time where that was measured. Measured where
 * a job of that length ran; otherwise extrapolated from the other length (fixed cost + per-second cost, from
 * the stage times), or, for several at a time, by the gain measured at the other length.
 */
export function capacityTable(input: {
  jobs: readonly JobRun[];
  presets: readonly PresetSweep[];
  concurrent: readonly ConcurrentRun[];
  encoder: string;
}): CapacityRow[] {
  const rows: CapacityRow[] = [];
  for (const orientation of ["portrait", "landscape"] as const) {
    const jobs = input.jobs.filter((job) => job.clip.orientation === orientation);
    if (jobs.length === 0) continue;
    const size = `${jobs[0]!.clip.width}x${jobs[0]!.clip.height}`;
    const secondsFor = (duration: number): { seconds: number; measured: boolean } => {
      const exact = jobs.find((job) => Math.abs(job.clip.duration_seconds - duration) < 1);
      if (exact) return { seconds: exact.wall_ms / 1000, measured: true };
      // Scale the longest measured job: stage times grow with duration; the API round trips do not.
      const longest = longestJob(jobs);
      const scaled = Object.entries(longest.stage_ms).reduce((sum, [stage, ms]) => sum + (stage === "charge" ? ms : (ms * duration) / longest.clip.duration_seconds), 0);
      const overhead = Math.max(0, longest.wall_ms - Object.values(longest.stage_ms).reduce((a, b) => a + b, 0));
      return { seconds: (scaled + overhead) / 1000, measured: false };
    };
    const short = secondsFor(60);
    const long = secondsFor(600);
    rows.push({
      setup: `this machine, 1 worker, 1 job at a time, ${input.encoder}, ${size} ${jobs[0]!.preset}`,
      kind: short.measured && long.measured ? "measured" : "extrapolated",
      videos_per_hour_60s: perHour(short.seconds),
      videos_per_hour_600s: perHour(long.seconds),
      basis: `whole jobs through the API: ${short.seconds.toFixed(1)} s per 60 s video${short.measured ? "" : " (extrapolated)"}, ${long.seconds.toFixed(1)} s per 600 s video${long.measured ? "" : " (extrapolated)"}`,
    });
    const concurrent = input.concurrent.filter((run) => run.clip.orientation === orientation);
    const row = concurrentRow(concurrent, { short: perHour(short.seconds), long: perHour(long.seconds) }, `${input.encoder}, ${size} ${jobs[0]!.preset}`);
    if (row) rows.push(row);
    rows.push(...gpuProjections(jobs, input, size));
  }
  return rows;
}

/** The row of a worker running several jobs at a time, from the runs of that orientation. */
function concurrentRow(runs: readonly ConcurrentRun[], oneAtATime: { short: number; long: number }, what: string): CapacityRow | null {
  const at = (seconds: number) => runs.find((run) => Math.abs(run.clip.duration_seconds - seconds) < 1);
  const short = at(60);
  const long = at(600);
  const measured = short ?? long;
  if (!measured) return null;
  // Where one length was not run several at a time, its one-at-a-time rate scaled by the gain measured on the other.
  const gain = measured.videos_per_hour / (measured === short ? oneAtATime.short : oneAtATime.long);
  return {
    setup: `this machine, 1 worker, ${measured.worker_concurrency} jobs at a time (WORKER_CONCURRENCY=${measured.worker_concurrency}), ${what}`,
    kind: short && long ? "measured" : "extrapolated",
    videos_per_hour_60s: short?.videos_per_hour ?? tenths(oneAtATime.short * gain),
    videos_per_hour_600s: long?.videos_per_hour ?? tenths(oneAtATime.long * gain),
    basis: `${runs.map((run) => `${run.jobs} × ${run.clip.duration_seconds.toFixed(0)} s submitted at once: all done in ${(run.wall_ms / 1000).toFixed(1)} s`).join("; ")}; ${gain.toFixed(2)} × the throughput of one at a time${short && long ? "" : " (the other length scaled by that)"}`,
  };
}

function gpuProjections(jobs: readonly JobRun[], input: { presets: readonly PresetSweep[] }, size: string): CapacityRow[] {
  const job = longestJob(jobs);
  const duration = job.clip.duration_seconds;
  // Per second of video: what stays on the CPU (download, probe, storing; drawing captions) is taken as measured.
  const fixedMs = (job.stage_ms.ingest ?? 0) + (job.stage_ms.inspect ?? 0) + (job.stage_ms.store ?? 0) + (job.stage_ms.charge ?? 0);
  const sweep = input.presets.find((s) => s.clip.orientation === job.clip.orientation);
  const drawn = sweep?.runs.find((run) => run.preset === job.preset);
  const drawMsPerVideoSecond = drawn?.frames_per_second ? ((drawn.frames_drawn / sweep!.clip.duration_seconds) * 1000) / drawn.frames_per_second : 0;
  const asrMsPerVideoSecond = GPU_ASSUMPTIONS.gpuAsrRealTimeFactor * 1000;
  const encodeMsPerVideoSecond = (FRAME_RATE * 1000) / GPU_ASSUMPTIONS.nvencFramesPerSecond1080p;
  // Job seconds for a video of d seconds, given what rendering costs per second of video. Recognition and the
  // render run at once (the render is fed cues as they become final), so a job takes the longer of the two.
  const jobSeconds = (renderMsPerVideoSecond: number) => (d: number) =>
    ((fixedMs * d) / duration + d * Math.max(asrMsPerVideoSecond, renderMsPerVideoSecond)) / 1000;
  const nvencSeconds = jobSeconds(Math.max(encodeMsPerVideoSecond, drawMsPerVideoSecond));
  // H100/H200: no NVENC; the render stage stays on the CPU as measured here.
  const cpuEncodeSeconds = jobSeconds((job.stage_ms.render ?? 0) / duration);
  const overlap = "stages: download, inspect, then recognition on the GPU beside the render (caption drawing on the CPU beside NVENC), then store";
  const assumptions = `${overlap}; assumed: NVENC ${GPU_ASSUMPTIONS.nvencFramesPerSecond1080p} fps at 1080p, GPU ASR RTF ${GPU_ASSUMPTIONS.gpuAsrRealTimeFactor}; measured here: ingest/inspect/store ${(fixedMs / 1000).toFixed(1)} s per ${duration.toFixed(0)} s, caption drawing ${drawn?.frames_per_second ? `${drawn.frames_per_second} frames/s` : "not measured (no render sweep of this orientation)"}`;
  return [
    {
      setup: `projection: NVENC GPU (L4/A10 class), 1 worker, ${size} ${job.preset}`,
      kind: "projection",
      videos_per_hour_60s: perHour(nvencSeconds(60)),
      videos_per_hour_600s: perHour(nvencSeconds(600)),
      basis: assumptions,
    },
    {
      setup: `projection: H100/H200 (no NVENC: libx264 on this machine's CPU), 1 worker, ${size} ${job.preset}`,
      kind: "projection",
      videos_per_hour_60s: perHour(cpuEncodeSeconds(60)),
      videos_per_hour_600s: perHour(cpuEncodeSeconds(600)),
      basis: `stages: download, inspect, then recognition on the GPU (RTF ${GPU_ASSUMPTIONS.gpuAsrRealTimeFactor}, assumed) beside the render, decode and encode with libx264 on the CPU as measured here (the render stage's time, which already overlaps this machine's CPU recognition), then store`,
    },
  ];
}
