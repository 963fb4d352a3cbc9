import { framesBetween, cueTimes, plainLook, type CaptionAnimation } from "./caption-animation.ts";
import { assPop, noSwitches } from "./ass-look.ts";
import { EASE_OUT_BACK_PEAK, easeOutBack, progress } from "./easing.ts";

const POP_SECONDS = 0.22;
const START_SCALE = 0.5;

/** The whole cue pops in about its centre when it starts. */
export const centerPop: CaptionAnimation = {
  overshootEm: 0,
  // A tall or wide cue grows past its laid-out size by this much at the peak of the pop: layout leaves room for it.
  peakBlockScale: START_SCALE + (1 - START_SCALE) * EASE_OUT_BACK_PEAK,
  movesWholeWords: true,
  frame(layout, t, style) {
    const scale = START_SCALE + (1 - START_SCALE) * easeOutBack(progress(t, layout.cue.start, POP_SECONDS));
    const centreX = layout.block.x + layout.block.width / 2;
    const centreY = layout.block.y + layout.block.height / 2;
    return {
      words: layout.words.map((word) => {
        const line = layout.lines[word.line]!;
        const wordX = word.x + word.width / 2;
        const wordY = line.top + layout.lineHeight / 2;
        return { ...plainLook(style), scale, dx: (scale - 1) * (wordX - centreX), dy: (scale - 1) * (wordY - centreY) };
      }),
      boxes: [],
    };
  },
  changeTimes: (layout, frameStep) => cueTimes(layout, framesBetween(layout.cue.start, layout.cue.start + POP_SECONDS, frameStep)),
  ass: {
    leavesOut: null,
    switchTimes: noSwitches,
    look: (_word, { t, cue, plain }) => ({ ...plain, ...assPop(t, cue.start, { seconds: POP_SECONDS, startScale: START_SCALE }) }),
  },
};
