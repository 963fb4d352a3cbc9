import { plainLook, wordStartMotionTimes, type CaptionAnimation } from "./caption-animation.ts";
import { assPop, wordStarts } from "./ass-look.ts";
import { EASE_OUT_BACK_PEAK, easeOutBack, progress } from "./easing.ts";

const POP_SECONDS = 0.18;
const START_SCALE = 0.4;

/** Each word appears when spoken, popping from small past full size and back. */
export const popIn: CaptionAnimation = {
  overshootEm: 0.15,
  // A word at the end of a line overshoots by half its growth at the peak of the pop.
  sideGrowth: ((1 - START_SCALE) * (EASE_OUT_BACK_PEAK - 1)) / 2,
  movesWholeWords: true,
  frame: (layout, t, style) => ({
    words: layout.words.map((word) => ({
      ...plainLook(style),
      visible: word.start <= t,
      scale: START_SCALE + (1 - START_SCALE) * easeOutBack(progress(t, word.start, POP_SECONDS)),
    })),
    boxes: [],
  }),
  changeTimes: (layout, frameStep) => wordStartMotionTimes(layout, POP_SECONDS, frameStep),
  ass: {
    leavesOut: null,
    switchTimes: wordStarts,
    look: (word, { t, plain }) =>
      word.start <= t ? { ...plain, ...assPop(t, word.start, { seconds: POP_SECONDS, startScale: START_SCALE }) } : { ...plain, opacity: 0 },
  },
};
