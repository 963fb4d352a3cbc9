import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import type { Orientation } from "./bench-videos.ts";
import type { PlannedStep } from "./progress-bar.ts";

/** Renders of the preset sweep between two floor runs: each render is compared with the floor runs just before and after it. */
export const RENDERS_PER_FLOOR = 4;

/** The preset of the whole jobs (and the one a quick run also burns in with libass). */
export const JOB_PRESET: PresetId = "highlight";

export interface BenchOptions {
  /** 600 s videos too, every preset on 60 s clips, each also burned in with libass. */
  full: boolean;
  /** Comma-separated presets of the render sweep (default: all). */
  presets?: string;
  /** portrait or landscape only (default: both). */
  orientation?: string;
  /** Run the API throughput scenarios. */
  api: boolean;
  /** "sweep": only the render sweeps (with their libass burn-ins), captioned with a transcript of their clip. */
  only?: string;
  /** Renders of each preset in the sweep, as text from the command line (default 1). */
  repeat?: string;
}

export interface ClipSpec {
  orientation: Orientation;
  seconds: number;
}

export interface BenchPlan extends Pick<BenchOptions, "full" | "api"> {
  /** Whole jobs through the service. */
  jobs: ClipSpec[];
  /** Render sweeps over the presets. */
  sweeps: ClipSpec[];
  /** Speech recognition runs on this clip's audio (the other orientation's is the same); null: not measured. */
  asr: ClipSpec | null;
  /** With no whole jobs to give the sweeps a transcript: the clip transcribed for them. */
  sweepWords: ClipSpec | null;
  /** Several copies of a clip at once on a worker running `workers` jobs at a time: its throughput. */
  concurrent: { clip: ClipSpec; jobs: number; workers: number }[];
  presets: PresetId[];
  libassPresets: PresetId[];
  /** Renders of each preset in the sweep (their median is reported). */
  repeat: number;
  /** Each distinct video the plan uses, made once. */
  videos: ClipSpec[];
  steps: PlannedStep[];
}

export const videoKey = ({ orientation, seconds }: ClipSpec) => `${orientation}-${seconds}`;

/** The progress bar's step of each part of the run. */
export const stepLabel = {
  video: ({ orientation, seconds }: ClipSpec) => `make ${orientation} ${seconds} s video`,
  job: ({ orientation, seconds }: ClipSpec) => `job via the API: ${orientation} ${seconds} s`,
  floor: ({ orientation, seconds }: ClipSpec) => `floor re-encode: ${orientation} ${seconds} s`,
  sweep: ({ orientation, seconds }: ClipSpec) => `render sweep: ${orientation} ${seconds} s`,
  concurrent: ({ clip, jobs, workers }: BenchPlan["concurrent"][number]) => `${jobs} jobs at once, ${workers} at a time: ${clip.orientation} ${clip.seconds} s`,
  service: "start the service",
  asr: "speech recognition",
  sweepWords: "transcribe the sweep's clip",
  api: "API throughput",
};

/** What a run measures; throws on an unknown preset or orientation. */
export function planBench(options: BenchOptions): BenchPlan {
  const presets = options.presets ? parsePresets(options.presets) : [...PRESET_IDS];
  const libassPresets = options.full ? presets : presets.filter((preset) => preset === JOB_PRESET);
  let jobs: ClipSpec[] = options.full
    ? [{ orientation: "portrait", seconds: 60 }, { orientation: "landscape", seconds: 60 }, { orientation: "portrait", seconds: 600 }, { orientation: "landscape", seconds: 600 }]
    : [{ orientation: "portrait", seconds: 60 }, { orientation: "landscape", seconds: 60 }];
  let sweeps: ClipSpec[] = options.full ? [{ orientation: "portrait", seconds: 60 }, { orientation: "landscape", seconds: 60 }] : [{ orientation: "portrait", seconds: 30 }];
  if (options.orientation !== undefined) {
    if (options.orientation !== "portrait" && options.orientation !== "landscape") throw new Error("--orientation must be portrait or landscape");
    const only = (clip: ClipSpec) => clip.orientation === options.orientation;
    jobs = jobs.filter(only);
    sweeps = sweeps.filter(only);
  }
  if (options.only !== undefined && options.only !== "sweep") throw new Error("--only takes sweep");
  const sweepOnly = options.only === "sweep";
  const repeat = options.repeat === undefined ? 1 : Number(options.repeat);
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 20) throw new Error("--repeat takes a whole number from 1 to 20");
  if (sweepOnly) jobs = [];
  // Throughput with two jobs at a time: four 60 s jobs (two rounds); the full run adds two 600 s ones.
  const concurrent = jobs.length === 0 ? [] : [
    { clip: jobs[0]!, jobs: 4, workers: 2 },
    ...jobs.filter((clip) => clip.seconds === 600).slice(0, 1).map((clip) => ({ clip, jobs: 2, workers: 2 })),
  ];
  const asr: ClipSpec | null = sweepOnly ? null : { orientation: options.orientation === "landscape" ? "landscape" : "portrait", seconds: options.full ? 600 : 60 };
  const sweepWords = sweepOnly ? (sweeps[0] ?? null) : null;
  const api = options.api && !sweepOnly;
  const videos = [...new Map([...jobs, ...sweeps, ...(asr ? [asr] : [])].map((clip) => [videoKey(clip), clip])).values()];
  // Weights: rough seconds on a 2-core machine per second of 1080p video.
  const steps: PlannedStep[] = [
    ...videos.map((clip) => ({ label: stepLabel.video(clip), weight: clip.seconds * 0.3 })),
    ...(jobs.length > 0 ? [{ label: stepLabel.service, weight: 10 }] : []),
    ...jobs.flatMap((clip) => [{ label: stepLabel.job(clip), weight: clip.seconds * 0.7 }, { label: stepLabel.floor(clip), weight: clip.seconds * 0.4 }]),
    ...concurrent.map((run) => ({ label: stepLabel.concurrent(run), weight: (run.clip.seconds * 0.7 * run.jobs) / 1.3 })),
    ...(asr ? [{ label: stepLabel.asr, weight: asr.seconds * 0.5 }] : []),
    ...(sweepWords ? [{ label: stepLabel.sweepWords, weight: sweepWords.seconds * 0.15 }] : []),
    ...sweeps.map((clip) => ({ label: stepLabel.sweep(clip), weight: clip.seconds * 0.45 * (sweepOrder(presets, repeat).length + libassPresets.length) })),
    ...(api ? [{ label: stepLabel.api, weight: 40 }] : []),
  ];
  return { full: options.full, api, jobs, sweeps, asr, sweepWords, concurrent, presets, libassPresets, repeat, videos, steps };
}

export type SweepStep = { kind: "floor" } | { kind: "render"; preset: PresetId; round: number };

/**
 * The order of a sweep's runs: every preset `repeat` times, in rounds (every other round backwards, so no preset
 * always runs just after the same floor), with a floor run first, after every RENDERS_PER_FLOOR renders and last.
 */
export function sweepOrder(presets: readonly PresetId[], repeat: number): SweepStep[] {
  if (!Number.isInteger(repeat) || repeat < 1) throw new RangeError(`repeat must be a whole number ≥ 1, got ${repeat}`);
  const renders = Array.from({ length: repeat }, (_, round) => (round % 2 === 0 ? presets : presets.toReversed()).map((preset) => ({ kind: "render" as const, preset, round })))
    .flat();
  const steps: SweepStep[] = [{ kind: "floor" }];
  renders.forEach((render, i) => {
    steps.push(render);
    if ((i + 1) % RENDERS_PER_FLOOR === 0 || i === renders.length - 1) steps.push({ kind: "floor" });
  });
  return steps;
}

const isPreset = (value: string): value is PresetId => (PRESET_IDS as readonly string[]).includes(value);

function parsePresets(list: string): PresetId[] {
  const chosen = list.split(",").map((p) => p.trim());
  const unknown = chosen.filter((p) => !isPreset(p));
  if (unknown.length > 0) throw new Error(`unknown preset(s) ${unknown.join(", ")}; known: ${PRESET_IDS.join(", ")}`);
  return chosen.filter(isPreset);
}
