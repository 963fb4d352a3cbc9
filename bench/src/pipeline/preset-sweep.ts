import { rm } from "node:fs/promises";
import path from "node:path";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import type { Word } from "@caption/shared/api/transcript";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import type { H264Encoder, VideoDecoder, MediaInfo } from "@caption/gpu-worker/media";
import { animationFor, renderCaptionedVideo, buildStyledCues } from "@caption/gpu-worker/render";
import type { Clip, CostMeasurement, PresetSweep, RenderRun } from "./bench-result.ts";
import { timed } from "./cpu-clock.ts";
import { measureFloor } from "./floor-encode.ts";
import { measureLibass } from "../libass/libass-measure.ts";

export interface PresetSweepOptions {
  clip: Clip;
  inputPath: string;
  media: MediaInfo;
  /** The transcript's words (times from the start of the video); cues past the clip are dropped. */
  words: readonly Word[];
  encoder: H264Encoder;
  decoder: VideoDecoder;
  workDir: string;
  presets?: readonly PresetId[];
  /** Presets also burned in with libass, each right after our render of it. */
  libassPresets: readonly PresetId[];
  /** One call per finished measurement, with what is running next. */
  onStep?: (label: string, fraction: number) => void;
}

const mean = (costs: readonly CostMeasurement[]): CostMeasurement => ({
  wall_ms: Math.round(costs.reduce((sum, c) => sum + c.wall_ms, 0) / costs.length),
  cpu_ms: Math.round(costs.reduce((sum, c) => sum + c.cpu_ms, 0) / costs.length),
});

/**
 * Our render+encode stage for each preset on one clip, bracketed by two floor runs (their mean is the
 * baseline, so drift in the machine's speed during the sweep shows up as the two floors' spread).
 */
export async function sweepPresets(options: PresetSweepOptions): Promise<PresetSweep> {
  const { media, encoder, decoder, workDir } = options;
  const presets = options.presets ?? PRESET_IDS;
  const outputPath = path.join(workDir, `sweep-${options.clip.orientation}.mp4`);
  const libassPresets = presets.filter((preset) => options.libassPresets.includes(preset));
  const total = presets.length + libassPresets.length + 2;
  let done = 0;
  const step = (label: string) => options.onStep?.(label, done++ / total);
  const floorRun = () => measureFloor({ media, encoder, decoder, inputPath: options.inputPath, outputPath });

  step("floor (plain re-encode)");
  const floorRuns = [await floorRun()];
  const measured: Omit<RenderRun, "cpu_ratio_to_floor" | "wall_ratio_to_floor">[] = [];
  for (const preset of presets) {
    step(`render ${preset}`);
    const style = resolveStyle({ preset, video: { width: media.width, height: media.height } });
    const cues = buildStyledCues(options.words, style, media.durationSeconds);
    // As a job renders: the poster's and the strip's frames taken on the way.
    const pictures = { framesPath: `${outputPath}.pictures.yuv` };
    const run = await timed(() => renderCaptionedVideo({ inputPath: options.inputPath, outputPath, cues, style, media, encoder, decoder, pictures }));
    await rm(pictures.framesPath, { force: true });
    const { framesDrawn, paintMs } = run.value;
    let libass: RenderRun["libass"] = null;
    if (libassPresets.includes(preset)) {
      step(`libass burn-in (${preset})`);
      const cost = await measureLibass({ inputPath: options.inputPath, outputPath, workDir, media, cues, style, encoder, decoder });
      libass = { ...cost, left_out: animationFor(style.animation).ass.leavesOut };
    }
    measured.push({
      preset,
      wall_ms: run.wallMs,
      cpu_ms: run.cpuMs,
      node_cpu_ms: run.ownCpuMs,
      frames_drawn: framesDrawn,
      frames_per_second: paintMs > 0 ? Math.round((framesDrawn * 1000) / paintMs) : null,
      libass,
    });
  }
  step("floor again");
  floorRuns.push(await floorRun());
  await rm(outputPath, { force: true });
  const floor = mean(floorRuns);
  return {
    clip: options.clip,
    floor,
    floor_runs: floorRuns,
    runs: measured.map((run) => ({ ...run, cpu_ratio_to_floor: run.cpu_ms / floor.cpu_ms, wall_ratio_to_floor: run.wall_ms / floor.wall_ms })),
  };
}
