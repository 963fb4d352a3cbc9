import { activeWordIndex, plainLook, wordStartTimes, type CaptionAnimation } from "./caption-animation.ts";
import { wordStarts } from "./ass-look.ts";

/** The word being spoken is bold (700), the others thin (200); the style's weight does not apply. */
export const weightPulse: CaptionAnimation = {
  overshootEm: 0,
  frame(layout, t, style) {
    const active = activeWordIndex(layout, t);
    return { words: layout.words.map((_, i) => ({ ...plainLook(style), weight: i === active ? 700 : 200 })), boxes: [] };
  },
  changeTimes: wordStartTimes,
  ass: {
    leavesOut: null,
    switchTimes: wordStarts,
    look: (_word, { active, plain }) => ({ ...plain, weight: active ? "bold" : "thin" }),
  },
};
