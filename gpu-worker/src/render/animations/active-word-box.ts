import type { Rect } from "../caption-geometry.ts";
import type { CueLayout } from "../caption-layout.ts";
import { activeWordIndex, plainLook, wordStartMotionTimes, type CaptionAnimation } from "./caption-animation.ts";
import { wordStarts } from "./ass-look.ts";
import { easeOutCubic, progress } from "./easing.ts";

const SLIDE_SECONDS = 0.12;
const PAD_X_EM = 0.15;
const RADIUS_EM = 0.18;

function wordBox(layout: CueLayout, index: number): Rect {
  const word = layout.words[index]!;
  const line = layout.lines[word.line]!;
  const pad = PAD_X_EM * layout.fontPx;
  return { x: word.x - pad, y: line.top, width: word.width + 2 * pad, height: layout.lineHeight };
}

/** A `highlight_color` box behind the word being spoken, sliding from the previous word. */
export const activeWordBox: CaptionAnimation = {
  overshootEm: 0,
  sideOvershootEm: PAD_X_EM,
  frame(layout, t, style) {
    const words = layout.words.map(() => plainLook(style));
    const active = activeWordIndex(layout, t);
    if (active < 0) return { words, boxes: [] };
    const to = wordBox(layout, active);
    const from = active > 0 ? wordBox(layout, active - 1) : to;
    const p = easeOutCubic(progress(t, layout.words[active]!.start, SLIDE_SECONDS));
    const mix = (a: number, b: number) => a + (b - a) * p;
    const rect = { x: mix(from.x, to.x), y: mix(from.y, to.y), width: mix(from.width, to.width), height: mix(from.height, to.height) };
    return { words, boxes: [{ rect, color: style.highlight_color, radius: RADIUS_EM * layout.fontPx }] };
  },
  changeTimes: (layout, frameStep) => wordStartMotionTimes(layout, SLIDE_SECONDS, frameStep),
  ass: {
    leavesOut: "the box sliding between words, its rounded corners",
    boxPadXEm: PAD_X_EM,
    switchTimes: wordStarts,
    look: (_word, { active, plain }) => ({ ...plain, boxed: active }),
  },
};
