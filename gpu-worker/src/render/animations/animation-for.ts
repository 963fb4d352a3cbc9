import type { Animation } from "@caption/shared/api/preset";
import { activeWordBox } from "./active-word-box.ts";
import { activeWordColor } from "./active-word-color.ts";
import { activeWordOpacity } from "./active-word-opacity.ts";
import { activeWordOutline } from "./active-word-outline.ts";
import type { CaptionAnimation } from "./caption-animation.ts";
import { centerPop } from "./center-pop.ts";
import { floatIn } from "./float-in.ts";
import { glowFadeIn } from "./glow-fade-in.ts";
import { noAnimation } from "./none.ts";
import { popIn } from "./pop-in.ts";
import { progressiveFill } from "./progressive-fill.ts";
import { scaleActive } from "./scale-active.ts";
import { slideLines } from "./slide-lines.ts";
import { weightPulse } from "./weight-pulse.ts";

/**
 * Every animation a preset can name, by its id: the type checker refuses the table while an id of ANIMATIONS
 * (shared/src/api/preset.ts) has no module. Adding an animation is its module and its line here.
 */
const ANIMATION_TABLE: Readonly<Record<Animation, CaptionAnimation>> = {
  none: noAnimation,
  "active-word-color": activeWordColor,
  "pop-in": popIn,
  "active-word-box": activeWordBox,
  "scale-active": scaleActive,
  "float-in": floatIn,
  "center-pop": centerPop,
  "active-word-outline": activeWordOutline,
  "slide-lines": slideLines,
  "active-word-opacity": activeWordOpacity,
  "progressive-fill": progressiveFill,
  "glow-fade-in": glowFadeIn,
  "weight-pulse": weightPulse,
};

/** The module of a preset's animation: its Skia frames and its ASS look. */
export function animationFor(animation: Animation): CaptionAnimation {
  return ANIMATION_TABLE[animation];
}
