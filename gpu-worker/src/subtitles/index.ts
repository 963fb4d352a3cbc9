// Subtitle files from cues: SRT, WebVTT and ASS (with the bundled fonts an ASS burn-in needs).
export { cuesToSrt, parseSrt, type SrtEntry } from "./srt.ts";
export { cuesToVtt } from "./vtt.ts";
export { assSubtitles } from "./ass/ass-subtitles.ts";
export { linkBundledFonts } from "./ass/ass-fonts.ts";
export { assFilter } from "./ass/ass-filter.ts";
