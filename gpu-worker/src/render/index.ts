// Rendering as other packages see it: cues from words, and the captioned video from cues.
export type { Cue } from "./cue-builder.ts";
export { buildStyledCues } from "./styled-cues.ts";
export { renderCaptionedVideo, audioOutputArgs, mp4OutputArgs } from "./render-video.ts";
