// Rendering as other packages see it: cues from words, the captioned video from cues, and the animations.
export type { Cue } from "./cue-builder.ts";
export { buildStyledCues } from "./styled-cues.ts";
export { renderCaptionedVideo, audioOutputArgs, mp4OutputArgs } from "./render-video.ts";
export { animationFor } from "./animations/animation-for.ts";
// Previews: the caption stream of any frame, laid on a picture as a render lays it.
export { captionTimeline, captionsInFrame } from "./caption-timeline.ts";
export { checkerboard, frameToRgb, overlayCaptions, Yuv420Frame } from "./yuv-frame.ts";
export { encodeRgbPng } from "./still-encoders.ts";
export { decodePng, downscale } from "./rgba-image.ts";
