import type { CaptionAnimation } from "./caption-animation.ts";
import { plainLook } from "./caption-animation.ts";
import { noSwitches } from "./ass-look.ts";

/** Plain cues: the whole cue appears at its start and stays still until its end. */
export const noAnimation: CaptionAnimation = {
  overshootEm: 0,
  frame: (layout, _t, style) => ({ words: layout.words.map(() => plainLook(style)), boxes: [] }),
  changeTimes: (layout) => [layout.cue.start],
  ass: { leavesOut: null, switchTimes: noSwitches, look: (_word, { plain }) => plain },
};
