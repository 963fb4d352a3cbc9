import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { animationFor } from "./animations/animation-for.ts";
import type { CueLayout } from "./caption-layout.ts";

// When a job's poster and preview strip are taken, chosen from its cues (the service knows what is on
// screen when) rather than by decoding the video to look.

/** The poster shows the frame with the most caption within this much of the start. */
export const POSTER_WINDOW_SECONDS = 10;
export const STRIP_FRAMES = 8;

export interface Timeline {
  layouts: readonly CueLayout[];
  style: ResolvedStyle;
  durationSeconds: number;
  frameRate: number;
}

/**
 * How much caption is on screen at `t`: the area of the words drawn (advance × line height), each weighed by
 * its opacity; 0 between cues.
 */
export function captionCoverage(timeline: Pick<Timeline, "layouts" | "style">, t: number): number {
  const layout = timeline.layouts.find((l) => l.cue.start <= t && t < l.cue.end);
  if (!layout) return 0;
  const frame = animationFor(timeline.style.animation).frame(layout, t, timeline.style);
  return layout.words.reduce((sum, word, i) => {
    const look = frame.words[i];
    return look?.visible ? sum + look.opacity * word.width * layout.lineHeight : sum;
  }, 0);
}

/**
 * Instants of one cue in [from, to) worth looking at: each word's end (the cue has revealed that much by
 * then) and the cue's last frame, kept inside the cue (a frame before its end) and the range.
 */
export function cueCandidates(layout: CueLayout, video: Pick<Timeline, "durationSeconds" | "frameRate">, from: number, to: number): number[] {
  const first = Math.max(layout.cue.start, from);
  const end = Math.min(layout.cue.end, to, video.durationSeconds);
  if (first >= end) return [];
  const last = Math.max(first, end - 1 / video.frameRate);
  return [...layout.words.map((word) => word.end), layout.cue.end].map((t) => Math.min(Math.max(t, first), last));
}

const candidates = (timeline: Timeline, from: number, to: number): number[] => timeline.layouts.flatMap((layout) => cueCandidates(layout, timeline, from, to));

/** The best of `instants` by caption coverage (the earliest of equals), or undefined when none shows any. */
function mostCaption(timeline: Timeline, instants: readonly number[]): number | undefined {
  let best: number | undefined;
  let bestCoverage = 0;
  for (const t of [...instants].sort((a, b) => a - b)) {
    const coverage = captionCoverage(timeline, t);
    if (coverage > bestCoverage) [best, bestCoverage] = [t, coverage];
  }
  return best;
}

/** The poster's window: the first 10 seconds, or the whole of a shorter video. */
export const posterWindow = (durationSeconds: number): number => Math.min(POSTER_WINDOW_SECONDS, durationSeconds);

/** Strip frame `i`'s part of the video, [from, to), and its middle. */
export function stripPart(durationSeconds: number, i: number): { from: number; to: number; middle: number } {
  const part = durationSeconds / STRIP_FRAMES;
  return { from: i * part, to: (i + 1) * part, middle: (i + 0.5) * part };
}

/**
 * The poster's instant: the most caption on screen in the first 10 seconds; without a caption there, the
 * first caption's fullest moment; without any caption, the middle of those 10 seconds.
 */
export function posterInstant(timeline: Timeline): number {
  const window = posterWindow(timeline.durationSeconds);
  return mostCaption(timeline, candidates(timeline, 0, window)) ?? mostCaption(timeline, candidates(timeline, 0, timeline.durationSeconds)) ?? window / 2;
}

/**
 * The strip's instants: the middle of each eighth of the video, or, when no caption shows there, the moment
 * of that eighth with the most caption (when it has one).
 */
export function stripInstants(timeline: Timeline): number[] {
  return Array.from({ length: STRIP_FRAMES }, (_, i) => {
    const { from, to, middle } = stripPart(timeline.durationSeconds, i);
    if (captionCoverage(timeline, middle) > 0) return middle;
    return mostCaption(timeline, candidates(timeline, from, to)) ?? middle;
  });
}
