import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { plainAssLook, type AssFace, type AssTimedWord, type AssWordLook } from "../../render/animations/ass-look.ts";
import { activeWordIndex, cueTimes } from "../../render/animations/caption-animation.ts";
import { displayText } from "../../render/caption-geometry.ts";
import type { Cue } from "../../render/cue-builder.ts";

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

interface TimedWord extends AssTimedWord {
  line: number;
  /** The text as drawn (text case applied). */
  display: string;
}

/**
 * The states a cue is shown in, covering [cue.start, cue.end) without gaps, as the animation's ASS face
 * (render/animations/) gives them: a new state wherever the face switches a word's look.
 */
export function assStates(cue: Cue, style: ResolvedStyle, face: AssFace): AssState[] {
  const words: TimedWord[] = cue.lines.flatMap((line, index) => {
    const lineStart = line.words[0]?.start ?? cue.start;
    return line.words.map((word) => ({ ...word, line: index, lineStart, display: displayText(word.text, style) }));
  });
  const times = cueTimes({ cue }, face.switchTimes(words));
  const plain = plainAssLook(style.text_color);
  return times.map((t, k) => {
    const active = activeWordIndex({ words }, t);
    return {
      start: t,
      end: times[k + 1] ?? cue.end,
      words: words.map((word, i) => ({ display: word.display, line: word.line, look: face.look(word, { t, active: i === active, cue, style, plain }) })),
    };
  });
}
