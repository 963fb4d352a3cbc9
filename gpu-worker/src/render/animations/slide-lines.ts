import { cueTimes, framesBetween, plainLook, type CaptionAnimation } from "./caption-animation.ts";
import { assFadeIn } from "./ass-look.ts";
import { easeOutCubic, progress } from "./easing.ts";

const SLIDE_SECONDS = 0.25;
const RISE_LINES = 0.5;

/** Each line, background included, slides up and fades in when its first word is spoken. */
export const slideLines: CaptionAnimation = {
  overshootEm: RISE_LINES * 1.5,
  movesWholeWords: true,
  frame(layout, t, style) {
    const lines = layout.lines.map((line) => {
      const start = line.words[0]?.start ?? layout.cue.start;
      const p = easeOutCubic(progress(t, start, SLIDE_SECONDS));
      return { visible: start <= t, opacity: p, dy: (1 - p) * RISE_LINES * layout.lineHeight };
    });
    return {
      words: layout.words.map((word) => {
        const line = lines[word.line]!;
        return { ...plainLook(style), visible: line.visible, opacity: line.opacity, dy: line.dy };
      }),
      lines,
      boxes: [],
    };
  },
  changeTimes: (layout, frameStep) =>
    cueTimes(layout, layout.lines.flatMap((line) => (line.words[0] ? framesBetween(line.words[0].start, line.words[0].start + SLIDE_SECONDS, frameStep) : []))),
  ass: {
    leavesOut: "the slide (lines only fade in)",
    switchTimes: (words) => words.map((w) => w.lineStart),
    look: (word, { t, plain }) =>
      word.lineStart <= t
        ? { ...plain, carriesBackground: true, ...assFadeIn(t, word.lineStart, SLIDE_SECONDS) }
        : { ...plain, carriesBackground: true, opacity: 0 },
  },
};
