// Rendering as other packages see it: cues from words, the captioned video from cues, and the animations.
export type { Cue } from "./cue-builder.ts";
export { buildStyledCues } from "./styled-cues.ts";
export { renderCaptionedVideo, audioOutputArgs, mp4OutputArgs } from "./render-video.ts";
export { animationFor } from "./animations/animation-for.ts";
