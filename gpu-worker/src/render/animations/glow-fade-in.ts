import { plainLook, wordStartMotionTimes, type CaptionAnimation } from "./caption-animation.ts";
import { assFadeIn, wordStarts } from "./ass-look.ts";
import { easeOutCubic, progress } from "./easing.ts";

const FADE_SECONDS = 0.25;

/** Each word fades in when spoken; the glow is the style's shadow, cast by whatever is visible. */
export const glowFadeIn: CaptionAnimation = {
  overshootEm: 0,
  movesWholeWords: true,
  frame: (layout, t, style) => ({
    words: layout.words.map((word) => ({
      ...plainLook(style),
      visible: word.start <= t,
      opacity: easeOutCubic(progress(t, word.start, FADE_SECONDS)),
    })),
    boxes: [],
  }),
  changeTimes: (layout, frameStep) => wordStartMotionTimes(layout, FADE_SECONDS, frameStep),
  ass: {
    leavesOut: null,
    switchTimes: wordStarts,
    look: (word, { t, plain }) => (word.start <= t ? { ...plain, ...assFadeIn(t, word.start, FADE_SECONDS) } : { ...plain, opacity: 0 }),
  },
};
