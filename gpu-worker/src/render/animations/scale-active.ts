import { activeWordIndex, easeOutCubic, plainLook, progress, wordStartMotionTimes, type CaptionAnimation } from "./caption-animation.ts";

const GROWTH = 0.15;
const GROW_SECONDS = 0.1;

/** The word being spoken takes `highlight_color` and grows. */
export const scaleActive: CaptionAnimation = {
  overshootEm: 0.15,
  frame(layout, t, style) {
    const active = activeWordIndex(layout, t);
    return {
      words: layout.words.map((word, i) =>
        i === active
          ? { ...plainLook(style), color: style.highlight_color, scale: 1 + GROWTH * easeOutCubic(progress(t, word.start, GROW_SECONDS)) }
          : plainLook(style),
      ),
      boxes: [],
    };
  },
  changeTimes: (layout, frameStep) => wordStartMotionTimes(layout, GROW_SECONDS, frameStep),
};
