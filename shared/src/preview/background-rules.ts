import type { PreviewRequest } from "../api/preview.ts";
import type { Word } from "../api/transcript.ts";
import { clipWindow } from "./preview-timeline.ts";

// A preview's background video and the request must agree: its size is the preview's, `at` lies inside it and a
// clip fits. The API checks a job's background (it knows the job's video); a worker checks an upload's, which only
// it probes. Both word the refusal alike.

/** What a preview's background tells about its video. */
export interface BackgroundVideoFacts {
  /** "job job_…" or "upload upl_…", as messages name it. */
  kind: "job" | "upload";
  id: string;
  width: number;
  height: number;
  durationSeconds: number;
  frameRate: number;
}

/** Seconds as messages write them: `2.5 s`. */
export const seconds = (value: number) => `${Math.round(value * 1000) / 1000} s`;

/** The first rule of the background that the request breaks, as the message naming the field, or null. */
export function backgroundProblem(request: PreviewRequest, words: readonly Word[], background: BackgroundVideoFacts): string | null {
  for (const field of ["width", "height"] as const) {
    if (request[field] !== background[field]) return `${field} must be the background ${background.kind}'s ${background[field]} (got ${request[field]})`;
  }
  if (!request.background) return null;
  const end = background.durationSeconds;
  const whose = `${background.kind} ${background.id}'s video`;
  if (request.background.at >= end) return `background.at must be before the end of ${whose} at ${seconds(end)} (got ${seconds(request.background.at)})`;
  const clip = request.format === "mp4" ? clipWindow(words, request).seconds : 0;
  if (request.background.at + clip > end + 1 / background.frameRate) return `duration runs past the end of ${whose}: ${seconds(clip)} from ${seconds(request.background.at)} of ${seconds(end)}`;
  return null;
}
