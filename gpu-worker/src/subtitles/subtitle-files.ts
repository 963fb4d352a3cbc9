import type { QualityReport } from "@caption/shared/api/quality-report";
import { SUBTITLE_PROFILES } from "@caption/shared/api/subtitle-profile";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { assSubtitles } from "./ass/ass-subtitles.ts";
import { layoutSubtitles } from "./layout/subtitle-layout.ts";
import { qualityReport } from "./quality-report.ts";
import { cuesToSrt } from "./srt.ts";
import { cuesToVtt } from "./vtt.ts";

export type QualityReportInput = Parameters<typeof qualityReport>[0];

export interface SubtitleFiles {
  srt: string;
  vtt: string;
  ass: string;
  report: QualityReport;
  /** Milliseconds the layout and the report took. */
  layoutMs: number;
  reportMs: number;
}

/**
 * A job's subtitle files: its words laid out by its profile (whatever the preset does in the picture) as SRT,
 * WebVTT and ASS (the ASS in the job's style), and the quality report of those cues and words.
 */
export function subtitleFiles(input: Omit<QualityReportInput, "layout"> & { durationSeconds: number; style: ResolvedStyle }): SubtitleFiles {
  const started = performance.now();
  const { words, frameRate, durationSeconds } = input;
  const layout = layoutSubtitles(words, { profile: SUBTITLE_PROFILES[input.profile], frameRate, durationSeconds });
  const laidOut = performance.now();
  const report = qualityReport({ ...input, layout });
  const reportMs = performance.now() - laidOut;
  const { cues } = layout;
  return { srt: cuesToSrt(cues), vtt: cuesToVtt(cues), ass: assSubtitles(cues, input.style), report, layoutMs: laidOut - started, reportMs };
}
