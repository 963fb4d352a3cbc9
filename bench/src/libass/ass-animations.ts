import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { applyTextCase } from "@caption/shared/style/text-case";
import type { Cue } from "../../../gpu-worker/src/render/cue-builder.ts";

/**
 * Our animations (gpu-worker/src/render/animations/) as a DIY ASS script would do them: one event per
 * word-highlight state, with what changes inside a state as libass `\t` transitions or `\kf` karaoke. The
 * timings and sizes below copy the renderer's constants. Not expressible, hence left out: motion of single
 * words (float-in's rise, slide-lines' slide, push's neighbours moving apart, the active-word box sliding),
 * easing curves (transitions are linear; pops keep their overshoot as a second segment) and rounded boxes.
 */

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
}

type MotionValues = Partial<Pick<AssWordLook, "scale" | "opacity">>;
type Motion = MotionValues & { transitions: AssTransition[] };

interface Keyframe extends MotionValues {
  atSeconds: number;
}

// As in gpu-worker/src/render/animations/*.ts.
const POP_IN = { seconds: 0.18, startScale: 0.4 };
const CENTER_POP = { seconds: 0.22, startScale: 0.5 };
const SCALE_ACTIVE = { seconds: 0.1, growth: 0.15 };
const FLOAT_IN_SECONDS = 0.3;
const GLOW_FADE_SECONDS = 0.25;
const SLIDE_LINES_SECONDS = 0.25;
const UNSPOKEN_OPACITY = 0.4;
const INACTIVE_OUTLINE_SCALE = 0.35;
// easeOutBack peaks at 1.1 after 58% of its time: where a pop overshoots before it settles.
const BACK_PEAK = { value: 1.1, at: 0.58 };

/** The states a cue is shown in, covering [cue.start, cue.end) without gaps. */
export function assStates(cue: Cue, style: ResolvedStyle): AssState[] {
  const words: TimedWord[] = cue.lines.flatMap((line, index) =>
    line.words.map((word) => ({ ...word, line: index, lineStart: line.words[0]?.start ?? cue.start })),
  );
  const times = stateTimes(cue, words, style.animation);
  return times.map((t, k) => ({
    start: t,
    end: times[k + 1] ?? cue.end,
    words: words.map((word, i) => ({ display: applyTextCase(word.text, style.text_case), line: word.line, look: lookAt(words, i, t, cue, style) })),
  }));
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
  const inside = changes.filter((t) => t > cue.start && t < cue.end);
  return [cue.start, ...[...new Set(inside)].sort((a, b) => a - b)];
}

function lookAt(words: readonly TimedWord[], index: number, t: number, cue: Cue, style: ResolvedStyle): AssWordLook {
  const word = words[index]!;
  const plain = plainLook(style);
  const isActive = index === activeIndex(words, t);
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
        ...keyframed(t, word.start, { scale: 1 }, [{ atSeconds: SCALE_ACTIVE.seconds, scale: 1 + SCALE_ACTIVE.growth }]),
      };
    case "pop-in":
      return spoken ? { ...plain, ...pop(t, word.start, POP_IN) } : { ...plain, opacity: 0 };
    case "center-pop":
      return { ...plain, ...pop(t, cue.start, CENTER_POP) };
    case "float-in":
      return spoken ? { ...plain, ...fadeIn(t, word.start, FLOAT_IN_SECONDS) } : { ...plain, opacity: 0 };
    case "glow-fade-in":
      return spoken ? { ...plain, ...fadeIn(t, word.start, GLOW_FADE_SECONDS) } : { ...plain, opacity: 0 };
    case "slide-lines":
      return word.lineStart <= t
        ? { ...plain, carriesBackground: true, ...fadeIn(t, word.lineStart, SLIDE_LINES_SECONDS) }
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

function plainLook(style: ResolvedStyle): AssWordLook {
  return { color: style.text_color, opacity: 1, outlineScale: 1, weight: null, scale: 1, transitions: [], carriesBackground: false, boxed: false, fill: null };
}

/** The word being spoken at `t`: the last one started (it stays active through pauses), or -1. */
function activeIndex(words: readonly TimedWord[], t: number): number {
  let active = -1;
  words.forEach((word, i) => {
    if (word.start <= t) active = i;
  });
  return active;
}

function pop(t: number, start: number, motion: { seconds: number; startScale: number }): Motion {
  const peak = motion.startScale + (1 - motion.startScale) * BACK_PEAK.value;
  return keyframed(t, start, { scale: motion.startScale }, [
    { atSeconds: motion.seconds * BACK_PEAK.at, scale: peak },
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
