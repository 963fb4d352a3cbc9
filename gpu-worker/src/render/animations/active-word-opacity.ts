import { plainLook, wordStartTimes, type CaptionAnimation } from "./caption-animation.ts";
import { wordStarts } from "./ass-look.ts";

const UNSPOKEN_OPACITY = 0.4;

/** Words already spoken are opaque, the rest dimmed. */
export const activeWordOpacity: CaptionAnimation = {
  overshootEm: 0,
  frame: (layout, t, style) => ({
    words: layout.words.map((word) => ({ ...plainLook(style), opacity: word.start <= t ? 1 : UNSPOKEN_OPACITY })),
    boxes: [],
  }),
  changeTimes: wordStartTimes,
  ass: {
    leavesOut: null,
    switchTimes: wordStarts,
    look: (word, { t, plain }) => ({ ...plain, opacity: word.start <= t ? 1 : UNSPOKEN_OPACITY }),
  },
};
