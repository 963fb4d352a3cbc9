import { plainLook, wordStartMotionTimes, type CaptionAnimation } from "./caption-animation.ts";
import { assFadeIn, wordStarts } from "./ass-look.ts";
import { easeOutCubic, progress } from "./easing.ts";

const FLOAT_SECONDS = 0.3;
const RISE_EM = 0.4;

/** Each word fades in when spoken, rising into place. */
export const floatIn: CaptionAnimation = {
  overshootEm: RISE_EM,
  movesWholeWords: true,
  frame: (layout, t, style) => ({
    words: layout.words.map((word) => {
      const p = easeOutCubic(progress(t, word.start, FLOAT_SECONDS));
      return { ...plainLook(style), visible: word.start <= t, opacity: p, dy: (1 - p) * RISE_EM * layout.fontPx };
    }),
    boxes: [],
  }),
  changeTimes: (layout, frameStep) => wordStartMotionTimes(layout, FLOAT_SECONDS, frameStep),
  ass: {
    leavesOut: "the rise (words only fade in)",
    switchTimes: wordStarts,
    look: (word, { t, plain }) => (word.start <= t ? { ...plain, ...assFadeIn(t, word.start, FLOAT_SECONDS) } : { ...plain, opacity: 0 }),
  },
};
