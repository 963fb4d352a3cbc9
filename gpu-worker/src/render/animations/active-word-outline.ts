import { activeWordIndex, plainLook, wordStartTimes, type CaptionAnimation } from "./caption-animation.ts";
import { wordStarts } from "./ass-look.ts";

const INACTIVE_OUTLINE_SCALE = 0.35;

/** The word being spoken wears the full outline; the others a thin one. */
export const activeWordOutline: CaptionAnimation = {
  overshootEm: 0,
  frame(layout, t, style) {
    const active = activeWordIndex(layout, t);
    return { words: layout.words.map((_, i) => ({ ...plainLook(style), outlineScale: i === active ? 1 : INACTIVE_OUTLINE_SCALE })), boxes: [] };
  },
  changeTimes: wordStartTimes,
  ass: {
    leavesOut: null,
    switchTimes: wordStarts,
    look: (_word, { active, plain }) => ({ ...plain, outlineScale: active ? 1 : INACTIVE_OUTLINE_SCALE }),
  },
};
