import { activeWordIndex, plainLook, wordStartTimes, type CaptionAnimation } from "./caption-animation.ts";
import { wordStarts } from "./ass-look.ts";

/** The word being spoken takes `highlight_color`. */
export const activeWordColor: CaptionAnimation = {
  overshootEm: 0,
  frame(layout, t, style) {
    const active = activeWordIndex(layout, t);
    return { words: layout.words.map((_, i) => ({ ...plainLook(style), color: i === active ? style.highlight_color : style.text_color })), boxes: [] };
  },
  changeTimes: wordStartTimes,
  ass: {
    leavesOut: null,
    switchTimes: wordStarts,
    look: (_word, { active, plain, style }) => (active ? { ...plain, color: style.highlight_color } : plain),
  },
};
