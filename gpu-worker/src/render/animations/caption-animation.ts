import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import type { Rect } from "../caption-geometry.ts";
import type { CueLayout } from "../caption-layout.ts";
import type { FaceWeight } from "../fonts.ts";
import type { AssFace } from "./ass-look.ts";

/** How one word looks at an instant; the painter draws words from these, in layout order. */
export interface WordLook {
  /** Hidden words keep their place in the layout but are not drawn. */
  visible: boolean;
  /** Applies to the word with its outline as one picture. */
  opacity: number;
  /** About the word's centre. */
  scale: number;
  /** Shift in pixels (positive is right / down). */
  dx: number;
  dy: number;
  color: string;
  outlineColor: string;
  /** Multiplies the style's outline thickness. */
  outlineScale: number;
  /** The left `fraction` of the word filled with `color` over the word's own colour. */
  fill: { color: string; fraction: number } | null;
  /** A font weight other than the style's, or null. */
  weight: FaceWeight | null;
}

/** How a line's background looks; the line's words carry their own looks. */
export interface LineLook {
  visible: boolean;
  opacity: number;
  dy: number;
}

/** A shape drawn over the background and under the text (e.g. the active word's box). */
export interface CaptionBox {
  rect: Rect;
  color: string;
  radius: number;
}

export interface CaptionFrame {
  words: WordLook[];
  /** Omitted: every line's background shows, still. */
  lines?: LineLook[];
  boxes: CaptionBox[];
}

/**
 * One animation, with its two faces side by side: the frames our renderer paints (Skia: `frame`, `changeTimes` and
 * the room they need) and the look an ASS script gives it for libass (`ass`, as plain data subtitles/ass formats).
 */
export interface CaptionAnimation {
  /** Extra room above and below the block the animation may paint into, in em of the font size. */
  overshootEm: number;
  /** Largest scale the whole block takes about its centre (a whole-cue pop); layout keeps that inside the frame. Default 1. */
  peakBlockScale?: number;
  /** Extra room left and right of the lines, in em (e.g. a box padded around a word). Default 0. */
  sideOvershootEm?: number;
  /** Extra room left and right, as a fraction of the block's width (words growing in place or pushing neighbours). Default 0. */
  sideGrowth?: number;
  /**
   * Set when the animation only moves, scales and fades whole words, whose colours, outline and weight stay the
   * same within a look (no fills): the painter may then keep a picture of each word and of its shadow for the
   * cue and lay frames down from them (see ComposedWords).
   */
  movesWholeWords?: true;
  /** The caption at time `t` (seconds, within the cue). */
  frame(layout: CueLayout, t: number, style: ResolvedStyle): CaptionFrame;
  /**
   * The instants in [cue start, cue end) at which the picture changes, ascending, starting with the cue's start.
   * Continuous motion lists every video frame (`frameStep` seconds apart) while it lasts.
   */
  changeTimes(layout: CueLayout, frameStep: number): number[];
  /** The animation as far as ASS override tags can express it. */
  ass: AssFace;
}

/** A word drawn plainly in the style's colours. */
export function plainLook(style: ResolvedStyle): WordLook {
  return {
    visible: true,
    opacity: 1,
    scale: 1,
    dx: 0,
    dy: 0,
    color: style.text_color,
    outlineColor: style.outline.color,
    outlineScale: 1,
    fill: null,
    weight: null,
  };
}

/** Index of the word being spoken at `t`: the last one started (it stays active through pauses), or -1. */
export function activeWordIndex(layout: { readonly words: readonly { start: number }[] }, t: number): number {
  let active = -1;
  layout.words.forEach((word, i) => {
    if (word.start <= t) active = i;
  });
  return active;
}

/** `from`, the video-frame instants (multiples of `step`) after it and before `to`, and `to`, where motion settles. */
export function framesBetween(from: number, to: number, step: number): number[] {
  const times = [from];
  for (let k = Math.ceil(from / step - 1e-9); k * step < to; k++) if (k * step > from) times.push(k * step);
  times.push(to);
  return times;
}

/** The given instants that fall inside the cue, with its start, ascending and without repeats. */
export function cueTimes(layout: { cue: { start: number; end: number } }, times: readonly number[]): number[] {
  const { start, end } = layout.cue;
  const inside = times.filter((t) => t > start && t < end);
  return [start, ...[...new Set(inside)].sort((a, b) => a - b)];
}

/** Cue start and every word start: for animations that change only when a word begins. */
export function wordStartTimes(layout: CueLayout): number[] {
  return cueTimes(layout, layout.words.map((w) => w.start));
}

/** Every word start, then each video frame of the `duration` seconds after it. */
export function wordStartMotionTimes(layout: CueLayout, duration: number, frameStep: number): number[] {
  return cueTimes(layout, layout.words.flatMap((w) => framesBetween(w.start, w.start + duration, frameStep)));
}
