import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { activeWordIndex, cueTimes, EASE_OUT_BACK_PEAK, EASE_OUT_BACK_PEAK_AT } from "../../render/animations/caption-animation.ts";
import { POP_SECONDS as CENTER_POP_SECONDS, START_SCALE as CENTER_POP_START_SCALE } from "../../render/animations/center-pop.ts";
import { FLOAT_SECONDS } from "../../render/animations/float-in.ts";
import { FADE_SECONDS as GLOW_FADE_SECONDS } from "../../render/animations/glow-fade-in.ts";
import { INACTIVE_OUTLINE_SCALE } from "../../render/animations/active-word-outline.ts";
import { UNSPOKEN_OPACITY } from "../../render/animations/active-word-opacity.ts";
import { POP_SECONDS as POP_IN_SECONDS, START_SCALE as POP_IN_START_SCALE } from "../../render/animations/pop-in.ts";
import { GROW_SECONDS, GROWTH } from "../../render/animations/scale-active.ts";
import { SLIDE_SECONDS } from "../../render/animations/slide-lines.ts";
import { displayText } from "../../render/caption-geometry.ts";
import type { Cue } from "../../render/cue-builder.ts";

/**
 * Our animations (gpu-worker/src/render/animations/) as a DIY ASS script would do them: one event per
 * word-highlight state, with what changes inside a state as libass `\t` transitions or `\kf` karaoke. The
 * timings and sizes below copy the renderer's constants. Not expressible, hence left out: motion of single
 * words (float-in's rise, slide-lines' slide, push's neighbours moving apart, the active-word box sliding),
 * easing curves (transitions are linear; pops keep their overshoot as a second segment) and rounded boxes.
 */

/**
 * What the ASS version of each animation leaves out of the work our renderer does (null: the same picture
 * changes, give or take easing), so that a comparison with libass can say when libass draws less.
 */
export const ASS_LEAVES_OUT: Readonly<Record<ResolvedStyle["animation"], string | null>> = {
  none: null,
  "active-word-color": null,
  "scale-active": "the neighbours moving apart",
  "pop-in": null,
  "center-pop": null,
  "float-in": "the rise (words only fade in)",
  "glow-fade-in": null,
  "slide-lines": "the slide (lines only fade in)",
  "active-word-box": "the box sliding between words, its rounded corners",
  "active-word-outline": null,
  "active-word-opacity": null,
  "weight-pulse": null,
  "progressive-fill": null,
};

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

export interface AssWord {
  /** The text as drawn (text case applied). */
  display: string;
  line: number;
  look: AssWordLook;
}

/** One event's worth of the cue: from `start` to `end` (seconds) its words look the same, or change only by transitions. */
export interface AssState {
  start: number;
  end: number;
  words: AssWord[];
}

interface TimedWord {
  text: string;
  start: number;
  end: number;
  line: number;
  /** When the word's line begins: its first word's start. */
  lineStart: number;
  /** The text as drawn (text case applied). */
  display: string;
}

type MotionValues = Partial<Pick<AssWordLook, "scale" | "opacity">>;
type Motion = MotionValues & { transitions: AssTransition[] };

interface Keyframe extends MotionValues {
  atSeconds: number;
}

/** The states a cue is shown in, covering [cue.start, cue.end) without gaps. */
export function assStates(cue: Cue, style: ResolvedStyle): AssState[] {
  const words: TimedWord[] = cue.lines.flatMap((line, index) => {
    const lineStart = line.words[0]?.start ?? cue.start;
    return line.words.map((word) => ({ ...word, line: index, lineStart, display: displayText(word.text, style) }));
  });
  const times = stateTimes(cue, words, style.animation);
  const plain = plainLook(style.text_color);
  return times.map((t, k) => {
    const active = activeWordIndex({ words }, t);
    return {
      start: t,
      end: times[k + 1] ?? cue.end,
      words: words.map((word, i) => ({ display: word.display, line: word.line, look: lookAt(word, i === active, t, cue, style, plain) })),
    };
  });
}

/** Cue start and the instants inside the cue where a word's look switches. */
function stateTimes(cue: Cue, words: readonly TimedWord[], animation: ResolvedStyle["animation"]): number[] {
  let changes: number[];
  switch (animation) {
    case "none":
    case "center-pop":
    case "progressive-fill":
      changes = [];
      break;
    case "slide-lines":
      changes = words.map((w) => w.lineStart);
      break;
    case "active-word-color":
    case "pop-in":
    case "active-word-box":
    case "scale-active":
    case "float-in":
    case "active-word-outline":
    case "active-word-opacity":
    case "glow-fade-in":
    case "weight-pulse":
      changes = words.map((w) => w.start);
      break;
  }
  return cueTimes({ cue }, changes);
}

function lookAt(word: TimedWord, isActive: boolean, t: number, cue: Cue, style: ResolvedStyle, plain: AssWordLook): AssWordLook {
  const spoken = word.start <= t;
  switch (style.animation) {
    case "none":
      return plain;
    case "active-word-color":
      return isActive ? { ...plain, color: style.highlight_color } : plain;
    case "scale-active":
      if (!isActive) return plain;
      return {
        ...plain,
        color: style.highlight_color,
        ...keyframed(t, word.start, { scale: 1 }, [{ atSeconds: GROW_SECONDS, scale: 1 + GROWTH }]),
      };
    case "pop-in":
      return spoken ? { ...plain, ...pop(t, word.start, { seconds: POP_IN_SECONDS, startScale: POP_IN_START_SCALE }) } : { ...plain, opacity: 0 };
    case "center-pop":
      return { ...plain, ...pop(t, cue.start, { seconds: CENTER_POP_SECONDS, startScale: CENTER_POP_START_SCALE }) };
    case "float-in":
      return spoken ? { ...plain, ...fadeIn(t, word.start, FLOAT_SECONDS) } : { ...plain, opacity: 0 };
    case "glow-fade-in":
      return spoken ? { ...plain, ...fadeIn(t, word.start, GLOW_FADE_SECONDS) } : { ...plain, opacity: 0 };
    case "slide-lines":
      return word.lineStart <= t
        ? { ...plain, carriesBackground: true, ...fadeIn(t, word.lineStart, SLIDE_SECONDS) }
        : { ...plain, carriesBackground: true, opacity: 0 };
    case "active-word-box":
      return { ...plain, boxed: isActive };
    case "active-word-outline":
      return { ...plain, outlineScale: isActive ? 1 : INACTIVE_OUTLINE_SCALE };
    case "active-word-opacity":
      return { ...plain, opacity: spoken ? 1 : UNSPOKEN_OPACITY };
    case "weight-pulse":
      return { ...plain, weight: isActive ? "bold" : "thin" };
    case "progressive-fill":
      return { ...plain, fill: { startMs: (word.start - t) * 1000, endMs: (word.end - t) * 1000 } };
  }
}

/** A word drawn in the style's own look, nothing animated. */
export function plainLook(textColor: string): AssWordLook {
  return { color: textColor, opacity: 1, outlineScale: 1, weight: null, scale: 1, transitions: [], carriesBackground: false, boxed: false, fill: null };
}

function pop(t: number, start: number, motion: { seconds: number; startScale: number }): Motion {
  const peak = motion.startScale + (1 - motion.startScale) * EASE_OUT_BACK_PEAK;
  return keyframed(t, start, { scale: motion.startScale }, [
    { atSeconds: motion.seconds * EASE_OUT_BACK_PEAK_AT, scale: peak },
    { atSeconds: motion.seconds, scale: 1 },
  ]);
}

function fadeIn(t: number, start: number, seconds: number): Motion {
  return keyframed(t, start, { opacity: 0 }, [{ atSeconds: seconds, opacity: 1 }]);
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
