import { cueTimes, framesBetween, plainLook, type CaptionAnimation } from "./caption-animation.ts";
import { noSwitches } from "./ass-look.ts";
import { progress } from "./easing.ts";

/** `highlight_color` sweeps through each word, left to right, while it is spoken. */
export const progressiveFill: CaptionAnimation = {
  overshootEm: 0,
  frame: (layout, t, style) => ({
    words: layout.words.map((word) => ({
      ...plainLook(style),
      fill: { color: style.highlight_color, fraction: word.end > word.start ? progress(t, word.start, word.end - word.start) : Number(t >= word.start) },
    })),
    boxes: [],
  }),
  changeTimes: (layout, frameStep) =>
    cueTimes(layout, layout.words.flatMap((w) => framesBetween(w.start, w.end, frameStep))),
  ass: {
    leavesOut: null,
    fills: true,
    switchTimes: noSwitches,
    look: (word, { t, plain }) => ({ ...plain, fill: { startMs: (word.start - t) * 1000, endMs: (word.end - t) * 1000 } }),
  },
};
