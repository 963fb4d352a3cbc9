import type { Word } from "@caption/shared/api/transcript";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { animationFor } from "./animations/animation-for.ts";
import type { Band, PixelArea } from "./band-layout.ts";
import { CaptionPainter } from "./caption-painter.ts";
import type { CueLayout } from "./caption-layout.ts";
import type { PipedFrame } from "./caption-pipe.ts";
import { scheduleFrames, type ScheduledFrame } from "./frame-schedule.ts";
import { planCaptions } from "./render-video.ts";
import { buildStyledCues } from "./styled-cues.ts";
import { YuvaPicture } from "./yuva-picture.ts";

// Any stretch of a render's caption stream, made as the render makes it: a preview's still is the band a
// rendered video shows in one of its frames, a preview's clip a window of its frames.

/** The captions of words in a style, as a render of a video of this length and frame rate sends them. */
export interface CaptionTimeline {
  style: ResolvedStyle;
  layouts: CueLayout[];
  band: Band;
  frameRate: number;
  /** Every caption frame the render sends, in order. */
  frames: ScheduledFrame[];
}

/** The timeline of a render job of these words (cues built and laid out as its render does). */
export function captionTimeline(words: readonly Word[], style: ResolvedStyle, video: { durationSeconds: number; frameRate: number }): CaptionTimeline {
  const cues = buildStyledCues(words, style, video.durationSeconds);
  const { layouts, band } = planCaptions(cues, style, video.durationSeconds);
  const animation = animationFor(style.animation);
  const frames = scheduleFrames(
    layouts.map((layout) => ({ start: layout.cue.start, end: layout.cue.end, changeTimes: animation.changeTimes(layout, 1 / video.frameRate) })),
    video,
  );
  return { style, layouts, band, frameRate: video.frameRate, frames };
}

/**
 * Which caption frames lead up to video frame `n`: the one it shows (the last sent at or before its time, as
 * ffmpeg's overlay picks it) and the last clear before it. The band's picture is a stack of patches, each only
 * what changed; from a clear (a transparent band) on they paint it as the render did.
 */
function leadUp(timeline: CaptionTimeline, n: number): { from: number; shown: number } {
  const { frames, frameRate } = timeline;
  let shown = 0;
  while (shown + 1 < frames.length && frames[shown + 1]!.ptsMs * frameRate <= n * 1000 + 1e-6) shown++;
  let from = shown;
  while (from > 0 && frames[from]!.cue !== null) from--;
  return { from, shown };
}

const pipedFrame = (timeline: CaptionTimeline, frame: ScheduledFrame, ptsMs: number, send: boolean): PipedFrame => ({
  ptsMs,
  layout: frame.cue === null ? null : timeline.layouts[frame.cue]!,
  t: frame.t,
  ...(send ? {} : { send: false as const }),
});

/**
 * The caption band's picture in video frame `n` (from 0), as a render paints it: the updates from the last
 * clear on, each over the area it repaints, but only those of which some pixel is still on screen in frame
 * `n` (a later update repaints all the rest). A pixel's value is the last update's to reach it, and that one
 * is always painted, so the picture is the render's; an animated cue repaints its active word every frame,
 * and all but the last of those are skipped.
 */
export function captionsInFrame(timeline: CaptionTimeline, n: number): YuvaPicture {
  const { from, shown } = leadUp(timeline, n);
  const frames = timeline.frames.slice(from, shown + 1);
  const layoutOf = (frame: ScheduledFrame) => (frame.cue === null ? null : timeline.layouts[frame.cue]!);
  const animation = animationFor(timeline.style.animation);
  const scout = new CaptionPainter(timeline.style, timeline.band, animation);
  const areas = frames.map((frame) => scout.advance(layoutOf(frame), frame.t));
  const shows = stillShowing(areas, timeline.band);
  const painter = new CaptionPainter(timeline.style, timeline.band, animation);
  const picture = new YuvaPicture(timeline.band.width, timeline.band.height);
  frames.forEach((frame, i) => {
    const area = areas[i];
    if (area && shows[i]) picture.update(painter.repaint(layoutOf(frame), frame.t, area));
  });
  return picture;
}

/** For each area, whether some of it is left uncovered by the areas after it. Areas lie on even rows and columns. */
function stillShowing(areas: readonly (PixelArea | null)[], band: Band): boolean[] {
  // One cell per 2×2 pixels.
  const columns = band.width / 2;
  const covered = new Uint8Array(columns * (band.height / 2));
  const shows = areas.map(() => false);
  for (let i = areas.length - 1; i >= 0; i--) {
    const area = areas[i];
    if (!area) continue;
    for (let y = area.y / 2; y < (area.y + area.height) / 2; y++) {
      const row = y * columns;
      for (let x = area.x / 2; x < (area.x + area.width) / 2; x++) {
        if (covered[row + x] === 0) {
          covered[row + x] = 1;
          shows[i] = true;
        }
      }
    }
  }
  return shows;
}

/**
 * The caption stream of `count` video frames from frame `first`, its times from the window's start: the
 * frames before it painted but not sent, the one on screen at its start sent at 0, and a closing frame at its
 * end (past the stream's end ffmpeg's overlay would stop showing the last picture).
 */
export function windowFrames(timeline: CaptionTimeline, first: number, count: number): PipedFrame[] {
  const { frames, frameRate } = timeline;
  const { from, shown } = leadUp(timeline, first);
  const startMs = (first * 1000) / frameRate;
  const endMs = Math.floor(((first + count) * 1000) / frameRate);
  const piped = frames.slice(from, shown).map((frame) => pipedFrame(timeline, frame, 0, false));
  piped.push(pipedFrame(timeline, frames[shown]!, 0, true));
  let lastMs = 0;
  for (const frame of frames.slice(shown + 1)) {
    const ptsMs = Math.max(lastMs + 1, Math.floor(frame.ptsMs - startMs));
    if (ptsMs >= endMs) break;
    piped.push(pipedFrame(timeline, frame, ptsMs, true));
    lastMs = ptsMs;
  }
  const last = piped.at(-1)!;
  if (endMs > lastMs) piped.push({ ...last, ptsMs: endMs });
  return piped;
}
