import { rm } from "node:fs/promises";
import path from "node:path";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import type { Word } from "@caption/shared/api/transcript";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import type { H264Encoder, VideoDecoder, MediaInfo } from "@caption/gpu-worker/media";
import { animationFor, renderCaptionedVideo, buildStyledCues } from "@caption/gpu-worker/render";
import type { Clip, CostMeasurement, PresetSweep, RenderRun } from "./bench-result.ts";
import { median } from "../api/scenario-summary.ts";
import { sweepOrder } from "./bench-plan.ts";
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
  /** Presets also burned in with libass, each right after our first render of it. */
  libassPresets: readonly PresetId[];
  /** Renders of each preset (default 1); its ratio to the floor is their median. */
  repeat?: number;
  /** One call per finished measurement, with what is running next. */
  onStep?: (label: string, fraction: number) => void;
}

const mean = (costs: readonly CostMeasurement[]): CostMeasurement => ({
  wall_ms: Math.round(costs.reduce((sum, c) => sum + c.wall_ms, 0) / costs.length),
  cpu_ms: Math.round(costs.reduce((sum, c) => sum + c.cpu_ms, 0) / costs.length),
});

interface MeasuredRender {
  preset: PresetId;
  wallMs: number;
  cpuMs: number;
  nodeCpuMs: number;
  framesDrawn: number;
  paintMs: number;
  /** The mean of the floor runs just before and after it. */
  baseline: CostMeasurement;
}

/**
 * Our render+encode stage for each preset on one clip, interleaved with floor runs (sweepOrder): a render's
 * ratio is to the floor runs beside it, so drift in the machine's speed during the sweep cancels out, and with
 * `repeat` the ratio reported is the median of the preset's renders, with every render's ratio beside it.
 */
export async function sweepPresets(options: PresetSweepOptions): Promise<PresetSweep> {
  const { media, encoder, decoder, workDir } = options;
  const presets = options.presets ?? PRESET_IDS;
  const outputPath = path.join(workDir, `sweep-${options.clip.orientation}.mp4`);
  const libassPresets = presets.filter((preset) => options.libassPresets.includes(preset));
  const repeat = options.repeat ?? 1;
  const order = sweepOrder(presets, repeat);
  const total = order.length + libassPresets.length;
  let done = 0;
  const step = (label: string) => options.onStep?.(label, done++ / total);
  const floorRun = () => measureFloor({ media, encoder, decoder, inputPath: options.inputPath, outputPath });

  const floorRuns: CostMeasurement[] = [];
  // Renders still waiting for the floor run after them.
  let pending: (Omit<MeasuredRender, "baseline"> & { before: CostMeasurement })[] = [];
  const renders: MeasuredRender[] = [];
  const libass = new Map<PresetId, NonNullable<RenderRun["libass"]>>();
  for (const next of order) {
    if (next.kind === "floor") {
      step(floorRuns.length === 0 ? "floor (plain re-encode)" : "floor again");
      const floor = await floorRun();
      floorRuns.push(floor);
      renders.push(...pending.map(({ before, ...render }) => ({ ...render, baseline: mean([before, floor]) })));
      pending = [];
      continue;
    }
    const { preset, round } = next;
    step(repeat > 1 ? `render ${preset} (${round + 1}/${repeat})` : `render ${preset}`);
    const style = resolveStyle({ preset, video: { width: media.width, height: media.height } });
    const cues = buildStyledCues(options.words, style, media.durationSeconds);
    // As a job renders: the poster's and the strip's frames taken on the way.
    const pictures = { framesPath: `${outputPath}.pictures.yuv` };
    const run = await timed(() => renderCaptionedVideo({ inputPath: options.inputPath, outputPath, cues, style, media, encoder, decoder, pictures }));
    await rm(pictures.framesPath, { force: true });
    const { framesDrawn, paintMs } = run.value;
    pending.push({ preset, wallMs: run.wallMs, cpuMs: run.cpuMs, nodeCpuMs: run.ownCpuMs, framesDrawn, paintMs, before: floorRuns.at(-1)! });
    if (round === 0 && libassPresets.includes(preset)) {
      step(`libass burn-in (${preset})`);
      const cost = await measureLibass({ inputPath: options.inputPath, outputPath, workDir, media, cues, style, encoder, decoder });
      libass.set(preset, { ...cost, left_out: animationFor(style.animation).ass.leavesOut });
    }
  }
  await rm(outputPath, { force: true });
  return {
    clip: options.clip,
    floor: mean(floorRuns),
    floor_runs: floorRuns,
    runs: presets.map((preset) => summarise(preset, renders.filter((render) => render.preset === preset), libass.get(preset) ?? null)),
  };
}

/** One preset's renders as one run: medians, with each render's CPU ratio when there were several. */
function summarise(preset: PresetId, renders: readonly MeasuredRender[], libass: RenderRun["libass"]): RenderRun {
  const cpuRatios = renders.map((render) => render.cpuMs / render.baseline.cpu_ms);
  const framesDrawn = renders[0]!.framesDrawn;
  const paintMs = median(renders.map((render) => render.paintMs));
  return {
    preset,
    wall_ms: Math.round(median(renders.map((render) => render.wallMs))),
    cpu_ms: Math.round(median(renders.map((render) => render.cpuMs))),
    node_cpu_ms: Math.round(median(renders.map((render) => render.nodeCpuMs))),
    node_cpu_ratio_to_floor: median(renders.map((render) => render.nodeCpuMs / render.baseline.cpu_ms)),
    frames_drawn: framesDrawn,
    frames_per_second: paintMs > 0 ? Math.round((framesDrawn * 1000) / paintMs) : null,
    cpu_ratio_to_floor: median(cpuRatios),
    ...(renders.length > 1 && { cpu_ratios: cpuRatios }),
    wall_ratio_to_floor: median(renders.map((render) => render.wallMs / render.baseline.wall_ms)),
    libass,
  };
}
