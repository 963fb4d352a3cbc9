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

/** The painter module for a preset's animation. */
export function animationFor(animation: Animation): CaptionAnimation {
  switch (animation) {
    case "none":
      return noAnimation;
    case "active-word-color":
      return activeWordColor;
    case "pop-in":
      return popIn;
    case "active-word-box":
      return activeWordBox;
    case "scale-active":
      return scaleActive;
    case "float-in":
      return floatIn;
    case "center-pop":
      return centerPop;
    case "active-word-outline":
      return activeWordOutline;
    case "slide-lines":
      return slideLines;
    case "active-word-opacity":
      return activeWordOpacity;
    case "progressive-fill":
      return progressiveFill;
    case "glow-fade-in":
      return glowFadeIn;
    case "weight-pulse":
      return weightPulse;
  }
}
