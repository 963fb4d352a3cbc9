import { activeWordIndex, plainLook, wordStartMotionTimes, type CaptionAnimation } from "./caption-animation.ts";
import { assGrow, wordStarts } from "./ass-look.ts";
import { easeOutCubic, progress } from "./easing.ts";

const GROWTH = 0.15;
const GROW_SECONDS = 0.1;

/**
 * The word being spoken takes `highlight_color` and grows; the words beside it on its line move apart by
 * the growth, so the grown word never runs into them.
 */
export const scaleActive: CaptionAnimation = {
  overshootEm: 0.15,
  // The line's last word moves out by half the active word's growth (or grows by that much itself).
  sideGrowth: GROWTH / 2,
  movesWholeWords: true,
  frame(layout, t, style) {
    const active = activeWordIndex(layout, t);
    const activeWord = layout.words[active];
    const growth = activeWord === undefined ? 0 : GROWTH * easeOutCubic(progress(t, activeWord.start, GROW_SECONDS));
    const push = activeWord === undefined ? 0 : (growth * activeWord.width) / 2;
    return {
      words: layout.words.map((word, i) => {
        if (i === active) return { ...plainLook(style), color: style.highlight_color, scale: 1 + growth };
        if (activeWord === undefined || word.line !== activeWord.line) return plainLook(style);
        return { ...plainLook(style), dx: i < active ? -push : push };
      }),
      boxes: [],
    };
  },
  changeTimes: (layout, frameStep) => wordStartMotionTimes(layout, GROW_SECONDS, frameStep),
  ass: {
    leavesOut: "the neighbours moving apart",
    switchTimes: wordStarts,
    look: (word, { t, active, plain, style }) =>
      active ? { ...plain, color: style.highlight_color, ...assGrow(t, word.start, GROW_SECONDS, 1 + GROWTH) } : plain,
  },
};
