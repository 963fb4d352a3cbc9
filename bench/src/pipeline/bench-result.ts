import { Type, type Static } from "@sinclair/typebox";
import { TargetCheckSchema } from "../targets.ts";

const Ms = Type.Integer({ minimum: 0, description: "milliseconds" });
const Cost = Type.Object({ wall_ms: Ms, cpu_ms: Ms, description: Type.Optional(Type.String()) });
const OrientationSchema = Type.Union([Type.Literal("portrait"), Type.Literal("landscape")]);
const ClipSchema = Type.Object({ orientation: OrientationSchema, width: Type.Integer(), height: Type.Integer(), duration_seconds: Type.Number() });

export const AsrRunSchema = Type.Object({
  engine: Type.String(),
  model: Type.String(),
  provider: Type.String(),
  threads: Type.Integer({ minimum: 1 }),
  audio_seconds: Type.Number(),
  /** No CPU time: pocketsphinx's decoder is killed with its process group, never reaped by us, so its time cannot be counted. */
  wall_ms: Ms,
  /** Wall seconds per second of audio. */
  rtf: Type.Number(),
  words: Type.Integer({ minimum: 0 }),
  /** Word error rate against the part of the (synthetic, flite) narration the clip holds: a check that a model works, not its accuracy on real speech. */
  wer: Type.Optional(Type.Number({ minimum: 0 })),
});

export const JobRunSchema = Type.Object({
  clip: ClipSchema,
  preset: Type.String(),
  /** Submit → completed, as the client saw it. */
  wall_ms: Ms,
  stage_ms: Type.Record(Type.String(), Ms),
  /** Worker process tree (node + ffmpeg + recognizer), PostgreSQL excluded. */
  peak_rss_bytes: Type.Integer({ minimum: 0 }),
  rss_at_peak: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  frames_drawn: Type.Integer({ minimum: 0 }),
  /** CPU time of the service's process tree (API, worker, its ffmpeg and recognizer, PostgreSQL) from submit to completed. Absent in older results. */
  cpu_ms: Type.Optional(Ms),
  /**
   * cpu_ms by part: the service's node process (API and worker: HTTP, PostgreSQL's client, voice detection,
   * caption drawing, files), each command under it (PostgreSQL, the recognizer), and the ffmpeg and ffprobe runs
   * by what they are for. Absent in older results.
   */
  cpu_parts_ms: Type.Optional(Type.Record(Type.String(), Ms)),
  floor: Cost,
});

export const RenderRunSchema = Type.Object({
  preset: Type.String(),
  wall_ms: Ms,
  cpu_ms: Ms,
  /** Node's part of cpu_ms (drawing and converting caption pictures, piping them); the rest is ffmpeg's. Absent in older results. */
  node_cpu_ms: Type.Optional(Ms),
  /** node_cpu_ms ÷ the floor runs beside each render (the median of several). Absent in older results. */
  node_cpu_ratio_to_floor: Type.Optional(Type.Number()),
  frames_drawn: Type.Integer({ minimum: 0 }),
  /** Caption pictures drawn per second of drawing time. */
  frames_per_second: Type.Union([Type.Number(), Type.Null()]),
  /** CPU ÷ the floor runs just before and after the render; with several renders, their median. */
  cpu_ratio_to_floor: Type.Number(),
  /** Each render's cpu_ratio_to_floor in the order run, when the preset was rendered more than once (--repeat). */
  cpu_ratios: Type.Optional(Type.Array(Type.Number())),
  wall_ratio_to_floor: Type.Number(),
  /** ffmpeg + libass burn-in of the same cues as an ASS script, same encoder settings, measured right after ours. */
  libass: Type.Union([
    Type.Object({
      wall_ms: Ms,
      cpu_ms: Ms,
      /** What the ASS version of the animation does not do (null: the same picture changes). */
      left_out: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
});

export const PresetSweepSchema = Type.Object({
  clip: ClipSchema,
  /** Mean of all the floor runs, interleaved with the renders (each render's ratio is to the runs beside it). */
  floor: Cost,
  floor_runs: Type.Array(Cost),
  runs: Type.Array(RenderRunSchema),
});

export const ConcurrentRunSchema = Type.Object({
  clip: ClipSchema,
  preset: Type.String(),
  /** WORKER_CONCURRENCY of the one worker. */
  worker_concurrency: Type.Integer({ minimum: 1 }),
  /** Copies of the clip submitted at once. */
  jobs: Type.Integer({ minimum: 1 }),
  /** First submission → last completion. */
  wall_ms: Ms,
  videos_per_hour: Type.Number(),
});

export const ApiScenarioSchema = Type.Object({ name: Type.String(), requests_per_second: Type.Number(), p50_ms: Type.Number(), p99_ms: Type.Number() });

export const CapacityRowSchema = Type.Object({
  setup: Type.String(),
  kind: Type.Union([Type.Literal("measured"), Type.Literal("extrapolated"), Type.Literal("projection")]),
  videos_per_hour_60s: Type.Number(),
  videos_per_hour_600s: Type.Number(),
  basis: Type.String(),
});

export const BenchResultSchema = Type.Object({
  version: Type.Literal(1),
  mode: Type.Union([Type.Literal("quick"), Type.Literal("full")]),
  started_at: Type.String(),
  finished_at: Type.String(),
  command: Type.String(),
  machine: Type.Object({
    cpus: Type.Integer(),
    cpu_model: Type.String(),
    memory_gib: Type.Number(),
    node: Type.String(),
    ffmpeg: Type.String(),
    load_average_at_start: Type.Array(Type.Number()),
    load_average_at_end: Type.Array(Type.Number()),
  }),
  encoder: Type.String(),
  decoder: Type.String(),
  asr: Type.Array(AsrRunSchema),
  jobs: Type.Array(JobRunSchema),
  presets: Type.Array(PresetSweepSchema),
  /** Several jobs at once on one worker (WORKER_CONCURRENCY > 1). */
  concurrent: Type.Array(ConcurrentRunSchema),
  api: Type.Union([Type.Array(ApiScenarioSchema), Type.Null()]),
  targets: Type.Array(TargetCheckSchema),
  capacity: Type.Array(CapacityRowSchema),
});

export type BenchResult = Static<typeof BenchResultSchema>;
export type AsrRun = Static<typeof AsrRunSchema>;
export type JobRun = Static<typeof JobRunSchema>;
export type RenderRun = Static<typeof RenderRunSchema>;
export type PresetSweep = Static<typeof PresetSweepSchema>;
export type ApiScenario = Static<typeof ApiScenarioSchema>;
export type ConcurrentRun = Static<typeof ConcurrentRunSchema>;
export type CapacityRow = Static<typeof CapacityRowSchema>;
export type Clip = Static<typeof ClipSchema>;
export type CostMeasurement = Static<typeof Cost>;

/**
 * The least whole job ÷ floor wall this job's CPU time allows on `cores` cores: what it would be if every
 * core were busy from submit to completed. Null for older results without the job's CPU time.
 */
export function cpuBoundJobToFloor(job: JobRun, cores: number): number | null {
  return job.cpu_ms === undefined ? null : job.cpu_ms / cores / job.floor.wall_ms;
}

/** libass burn-in CPU ÷ the sweep's floor; null where this preset was not burned in with libass. */
export function libassToFloor(sweep: PresetSweep, run: RenderRun): number | null {
  return run.libass === null ? null : run.libass.cpu_ms / sweep.floor.cpu_ms;
}

/** Our render+encode CPU ÷ libass's for the same cues; null where this preset was not burned in with libass. */
export function oursToLibass(run: RenderRun): number | null {
  return run.libass === null ? null : run.cpu_ms / run.libass.cpu_ms;
}
