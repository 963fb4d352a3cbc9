import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { EASE_OUT_BACK_PEAK, EASE_OUT_BACK_PEAK_AT } from "./easing.ts";

/**
 * The ASS face of an animation: how a DIY ASS script would do it, as plain data that subtitles/ass turns into
 * override tags. One event per word-highlight state, with what changes inside a state as libass `\t` transitions
 * or `\kf` karaoke. Not expressible, hence left out: motion of single words (float-in's rise, slide-lines' slide,
 * push's neighbours moving apart, the active-word box sliding), easing curves (transitions are linear; pops keep
 * their overshoot as a second segment) and rounded boxes. Each face says what it leaves out (`leavesOut`).
 */
export interface AssFace {
  /**
   * What the ASS version leaves out of the work our renderer does (null: the same picture changes, give or take
   * easing), so that a comparison with libass can say when libass draws less.
   */
  leavesOut: string | null;
  /** A `highlight_color` box is drawn behind boxed words, padded left and right by this much (em of the font size). */
  boxPadXEm?: number;
  /** Words fill with `highlight_color` by karaoke: the text's ASS style fills from the text colour to it. */
  fills?: true;
  /** The instants at which a word's look switches, so that a new event begins (those outside the cue are dropped). */
  switchTimes(words: readonly AssTimedWord[]): number[];
  /** How `word` looks in the event that starts at `at.t`. */
  look(word: AssTimedWord, at: AssInstant): AssWordLook;
}

/** A word of the cue as the ASS face sees it (seconds). */
export interface AssTimedWord {
  start: number;
  end: number;
  /** When the word's line begins: its first word's start. */
  lineStart: number;
}

/** The event a look is asked for. */
export interface AssInstant {
  /** The event's start, seconds. */
  t: number;
  /** The word is the one being spoken at `t`. */
  active: boolean;
  cue: { start: number; end: number };
  style: ResolvedStyle;
  /** The word in the style's own look (plainAssLook). */
  plain: AssWordLook;
}

/** A change after its event starts, in ms from the event start (it may have begun before the event). */
export interface AssTransition {
  fromMs: number;
  toMs: number;
  /** Values reached at `toMs`. */
  scale?: number;
  opacity?: number;
}

/** How a word is drawn during one event, in terms ASS override tags can express. */
export interface AssWordLook {
  /** Fill colour, #RRGGBB. */
  color: string;
  /** 0 hides the word (it keeps its place), 1 is opaque. */
  opacity: number;
  /** Multiplies the outline width. */
  outlineScale: number;
  /** A face other than the style's weight: the thin (light) or the bold one. */
  weight: "thin" | "bold" | null;
  scale: number;
  transitions: AssTransition[];
  /** The caption background behind this word shows and fades with it (lines that slide in) rather than with the cue. */
  carriesBackground: boolean;
  /** The active-word box is behind this word. */
  boxed: boolean;
  /** Progressive fill with `highlight_color`, ms from the event start (ASS karaoke `\kf`). */
  fill: { startMs: number; endMs: number } | null;
}

/** A word drawn in the style's own look, nothing animated. */
export function plainAssLook(textColor: string): AssWordLook {
  return { color: textColor, opacity: 1, outlineScale: 1, weight: null, scale: 1, transitions: [], carriesBackground: false, boxed: false, fill: null };
}

/** Switch times of faces whose looks change when a word begins. */
export const wordStarts = (words: readonly AssTimedWord[]): number[] => words.map((w) => w.start);

/** Switch times of faces whose looks hold for the whole cue (what changes, changes by transitions). */
export const noSwitches = (): number[] => [];

type MotionValues = Partial<Pick<AssWordLook, "scale" | "opacity">>;
type Motion = MotionValues & { transitions: AssTransition[] };

interface Keyframe extends MotionValues {
  atSeconds: number;
}

/** A pop from `startScale` past full size (easeOutBack's peak) and back, over `seconds` from `start`. */
export function assPop(t: number, start: number, motion: { seconds: number; startScale: number }): Motion {
  const peak = motion.startScale + (1 - motion.startScale) * EASE_OUT_BACK_PEAK;
  return keyframed(t, start, { scale: motion.startScale }, [
    { atSeconds: motion.seconds * EASE_OUT_BACK_PEAK_AT, scale: peak },
    { atSeconds: motion.seconds, scale: 1 },
  ]);
}

export function assFadeIn(t: number, start: number, seconds: number): Motion {
  return keyframed(t, start, { opacity: 0 }, [{ atSeconds: seconds, opacity: 1 }]);
}

/** Growth from full size to `scale` over `seconds` from `start`. */
export function assGrow(t: number, start: number, seconds: number, scale: number): Motion {
  return keyframed(t, start, { scale: 1 }, [{ atSeconds: seconds, scale }]);
}

/**
 * A motion that began at `start` with `initial` values and passes through `keyframes` (seconds after `start`),
 * as an event starting at `t` shows it: transitions timed from the event start, or the end values once it is over.
 */
function keyframed(t: number, start: number, initial: MotionValues, keyframes: readonly Keyframe[]): Motion {
  const seconds = keyframes.at(-1)?.atSeconds ?? 0;
  if (t >= start + seconds) {
    const settled = keyframes.reduce<MotionValues>((values, { atSeconds: _at, ...next }) => ({ ...values, ...next }), initial);
    return { ...settled, transitions: [] };
  }
  const offsetMs = (start - t) * 1000;
  return {
    ...initial,
    transitions: keyframes.map(({ atSeconds, ...values }, k) => ({
      fromMs: offsetMs + (keyframes[k - 1]?.atSeconds ?? 0) * 1000,
      toMs: offsetMs + atSeconds * 1000,
      ...values,
    })),
  };
}
