import type { Animation, PresetId } from "@caption/shared/api/preset";
import { getPreset } from "@caption/shared/presets/catalog";
import { atMost, type TargetCheck } from "../targets.ts";
import { oursToLibass, type JobRun, type PresetSweep } from "./bench-result.ts";

/** The pipeline's targets (issue #18), as ratios measured in one run. */
export const PIPELINE_TARGETS = {
  /** Render+encode CPU ÷ floor for presets whose picture changes only when a word starts. */
  renderToFloorStill: 1.05,
  /** The same for presets that animate every frame while words move, scale, fade or fill. */
  renderToFloorAnimated: 1.1,
  /** Whole job through the API, wall ÷ the floor's wall. */
  jobToFloor: 1.3,
  ourRenderToLibass: 0.95,
  peakRssBytes600s: 1.5 * 2 ** 30,
} as const;

// Animations whose picture changes only at a word's start; every other one sends a picture per video frame while it moves.
const STILL_BETWEEN_WORDS: ReadonlySet<Animation> = new Set(["none", "active-word-color", "active-word-opacity", "active-word-outline", "weight-pulse"]);

/** A preset's render+encode target: tighter when its picture holds still between words. */
export function renderTargetFor(preset: string): number {
  const animation = getPreset(preset as PresetId).animation;
  return STILL_BETWEEN_WORDS.has(animation) ? PIPELINE_TARGETS.renderToFloorStill : PIPELINE_TARGETS.renderToFloorAnimated;
}

export function checkTargets(input: { jobs: readonly JobRun[]; presets: readonly PresetSweep[] }): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const sweep of input.presets) {
    const clip = `${sweep.clip.orientation} ${sweep.clip.duration_seconds.toFixed(0)} s`;
    for (const run of sweep.runs) {
      checks.push(atMost(`render+encode ${run.preset} / floor CPU (${clip})`, run.cpu_ratio_to_floor, renderTargetFor(run.preset), "×"));
    }
    // Where the ASS version leaves part of the animation out, libass does less work: shown, not judged.
    for (const run of sweep.runs) {
      const ratio = oursToLibass(run);
      if (ratio === null || run.libass?.left_out !== null) continue;
      checks.push(atMost(`our ${run.preset} render / libass burn-in CPU (${clip})`, ratio, PIPELINE_TARGETS.ourRenderToLibass, "×"));
    }
  }
  for (const job of input.jobs) {
    const clip = `${job.clip.orientation} ${job.clip.duration_seconds.toFixed(0)} s`;
    checks.push(atMost(`whole job / floor wall (${clip}, ${job.preset})`, job.wall_ms / job.floor.wall_ms, PIPELINE_TARGETS.jobToFloor, "×"));
    if (job.clip.duration_seconds >= 599) {
      checks.push(atMost(`peak RSS of the job (${clip})`, job.peak_rss_bytes / 2 ** 30, PIPELINE_TARGETS.peakRssBytes600s / 2 ** 30, "GiB"));
    }
  }
  return checks;
}
