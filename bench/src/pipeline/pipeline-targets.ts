import { atMost, type TargetCheck } from "../targets.ts";
import { oursToLibass, type AsrRun, type JobRun, type PresetSweep } from "./bench-result.ts";

/** Issue #6's fast-path targets, as ratios measured in one run. */
export const PIPELINE_TARGETS = {
  renderToFloor: 1.1,
  jobToFloorPlusAsr: 1.25,
  ourRenderToLibass: 1.0,
  peakRssBytes600s: 1.5 * 2 ** 30,
} as const;

/** The ASR run the worker's engine matches, at the most threads measured (the worker's default). */
export function asrFor(engine: string, runs: readonly AsrRun[]): AsrRun | undefined {
  return runs.filter((run) => run.engine === engine).sort((a, b) => b.threads - a.threads)[0];
}

export function checkTargets(input: { jobs: readonly JobRun[]; presets: readonly PresetSweep[]; asr: readonly AsrRun[]; engine: string }): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const sweep of input.presets) {
    const clip = `${sweep.clip.orientation} ${sweep.clip.duration_seconds.toFixed(0)} s`;
    for (const run of sweep.runs) {
      checks.push(atMost(`render+encode ${run.preset} / floor CPU (${clip})`, run.cpu_ratio_to_floor, PIPELINE_TARGETS.renderToFloor, "×"));
    }
    // Where the ASS version leaves part of the animation out, libass does less work: shown, not judged.
    for (const run of sweep.runs) {
      const ratio = oursToLibass(run);
      if (ratio === null || run.libass?.left_out !== null) continue;
      checks.push(atMost(`our ${run.preset} render / libass burn-in CPU (${clip})`, ratio, PIPELINE_TARGETS.ourRenderToLibass, "×"));
    }
  }
  const asr = asrFor(input.engine, input.asr);
  for (const job of input.jobs) {
    const clip = `${job.clip.orientation} ${job.clip.duration_seconds.toFixed(0)} s`;
    if (asr) {
      const budgetMs = job.floor.wall_ms + asr.rtf * job.clip.duration_seconds * 1000;
      checks.push(atMost(`whole job / (floor + ASR) wall (${clip}, ${job.preset})`, job.wall_ms / budgetMs, PIPELINE_TARGETS.jobToFloorPlusAsr, "×"));
    }
    if (job.clip.duration_seconds >= 599) {
      checks.push(atMost(`peak RSS of the job (${clip})`, job.peak_rss_bytes / 2 ** 30, PIPELINE_TARGETS.peakRssBytes600s / 2 ** 30, "GiB"));
    }
  }
  return checks;
}
