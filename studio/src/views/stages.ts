import type { JobEvent } from "../api/types.ts";

export const STAGES = ["Upload", "Ingest", "Transcribe", "Render"] as const;
export type StageName = (typeof STAGES)[number];

export interface StageBar {
  name: StageName;
  /** 0 to 100. */
  percent: number;
  /** What a screen reader says of it. */
  text: string;
}

// The job's progress bands (docs/api.md, Job): ingest 0–10; transcription and render at once 12–95; store to 100.
const INGEST_END = 10;
const WORK_START = 12;
const WORK_END = 95;

const clamp = (value: number) => Math.max(0, Math.min(100, Math.round(value)));

/**
 * One bar per stage, from the job's events so far. A render job (rendered again) neither ingests nor transcribes;
 * a job from a URL uploads nothing. Transcription and render overlap: the Transcribe bar runs over the shared band
 * until the render starts, and the Render bar from there to the end.
 */
export function stageBars(events: readonly JobEvent[], facts: { uploaded: boolean; render: boolean }): StageBar[] {
  const last = events.at(-1);
  const status = last?.status ?? "queued";
  const progress = last?.progress ?? 0;
  const renderFrom = events.find((event) => event.status === "rendering")?.progress ?? WORK_START;
  const done = status === "completed";
  const percent: Record<StageName, number> = { Upload: 100, Ingest: 0, Transcribe: 0, Render: 0 };
  if (facts.render || ["transcribing", "rendering", "completed"].includes(status)) percent.Ingest = 100;
  else if (status === "ingesting") percent.Ingest = (progress / INGEST_END) * 100;
  if (facts.render || status === "rendering" || done) percent.Transcribe = 100;
  else if (status === "transcribing") percent.Transcribe = ((progress - WORK_START) / (WORK_END - WORK_START)) * 100;
  if (done) percent.Render = 100;
  else if (status === "rendering") percent.Render = ((progress - renderFrom) / (100 - renderFrom)) * 100;
  const skipped = (name: StageName) => (name === "Upload" && !facts.uploaded) || (facts.render && (name === "Ingest" || name === "Transcribe"));
  return STAGES.map((name) => {
    const value = clamp(percent[name]);
    const text = skipped(name) ? "not needed" : value === 100 ? "done" : `${value} %`;
    return { name, percent: value, text };
  });
}
