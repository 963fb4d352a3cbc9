import { easeOutCubic, plainLook, progress, wordStartMotionTimes, type CaptionAnimation } from "./caption-animation.ts";

export const FADE_SECONDS = 0.25;

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
};
