// What the caption command shows while it works, as pure functions of what it has heard and the time:
// bars redrawn in place on a terminal, one plain line per finished stage otherwise.
import type { JobStatus } from "@caption/shared/api/job";
import { progressBar } from "@caption/shared/runtime/progress-bar";

export const STAGES = ["upload", "ingest", "transcribe", "render"] as const;
export type Stage = (typeof STAGES)[number];

export interface StageState {
  /** 0 to 1. */
  fraction: number;
  /** Milliseconds on the caller's clock. */
  startedAt: number;
  endedAt?: number;
  /** Bytes, for the upload. */
  sent?: number;
  total?: number;
}

export interface ProgressState {
  stages: Partial<Record<Stage, StageState>>;
  /** The job's status once there is a job. */
  status?: JobStatus;
}

export const initialProgress = (): ProgressState => ({ stages: {} });

/** Each job stage's share of the job's progress (docs/api.md "Job": ingest 0–10, recognition and render 12–95, store 95–100). */
const BANDS: Record<Exclude<Stage, "upload">, readonly [number, number]> = {
  ingest: [0, 10],
  // Recognition and the render run at once; the transcribe bar ends when recognition does.
  transcribe: [12, 95],
  render: [12, 100],
};
const STAGE_OF: Partial<Record<JobStatus, Exclude<Stage, "upload">>> = { ingesting: "ingest", transcribing: "transcribe", rendering: "render" };
const JOB_STAGES = ["ingest", "transcribe", "render"] as const;

export function withUpload(state: ProgressState, sent: number, total: number, now: number): ProgressState {
  const before = state.stages.upload;
  const fraction = total > 0 ? Math.min(1, sent / total) : 1;
  const upload: StageState = { startedAt: before?.startedAt ?? now, fraction, sent, total, ...(fraction >= 1 ? { endedAt: before?.endedAt ?? now } : {}) };
  return { ...state, stages: { ...state.stages, upload } };
}

/** A job event (or the job as first read): the stage it is in moves, those before it are done. */
export function withJobEvent(state: ProgressState, status: JobStatus, progress: number, now: number): ProgressState {
  const stages = { ...state.stages };
  if (status === "queued") {
    // A retry starts the job's stages again.
    for (const stage of JOB_STAGES) delete stages[stage];
    return { stages, status };
  }
  const current = STAGE_OF[status];
  const reached = status === "completed" ? JOB_STAGES.length : current === undefined ? -1 : JOB_STAGES.indexOf(current);
  JOB_STAGES.forEach((stage, index) => {
    const before = stages[stage];
    if (index < reached) stages[stage] = { startedAt: before?.startedAt ?? now, fraction: 1, endedAt: before?.endedAt ?? now };
    else if (index === reached) {
      const [low, high] = BANDS[stage];
      const fraction = Math.min(1, Math.max(before?.fraction ?? 0, (progress - low) / (high - low)));
      stages[stage] = { startedAt: before?.startedAt ?? now, fraction };
    }
  });
  return { stages, status };
}

const LABEL_WIDTH = 11;

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The bars of the stages begun so far. */
export function progressBars(state: ProgressState, now: number): string[] {
  const lines: string[] = [];
  for (const stage of STAGES) {
    const at = state.stages[stage];
    if (at === undefined) {
      if (stage === "ingest" && state.status === "queued") lines.push(`${"queued".padEnd(LABEL_WIDTH)}waiting for a worker`);
      continue;
    }
    const bytes = at.total === undefined ? "" : `  ${mib(at.sent ?? 0)} / ${mib(at.total)}`;
    lines.push(`${stage.padEnd(LABEL_WIDTH)}${progressBar(at.fraction)}${bytes}  ${seconds((at.endedAt ?? now) - at.startedAt)}`);
  }
  return lines;
}

/** Plain lines (not a terminal): one for each stage that has finished between `before` and `after`. */
export function finishedStageLines(before: ProgressState, after: ProgressState): string[] {
  const lines: string[] = [];
  for (const stage of STAGES) {
    const now = after.stages[stage];
    if (now?.endedAt === undefined || before.stages[stage]?.endedAt !== undefined) continue;
    const bytes = now.total === undefined ? "" : ` ${mib(now.total)}`;
    lines.push(`${stage}:${bytes} done in ${seconds(now.endedAt - now.startedAt)}`);
  }
  return lines;
}
