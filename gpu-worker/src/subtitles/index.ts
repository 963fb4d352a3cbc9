// Subtitle files from cues: SRT, WebVTT and ASS (with the bundled fonts an ASS burn-in needs), laid out by a
// subtitle profile, and the quality report.
export { cuesToSrt, parseSrt, type SrtEntry } from "./srt.ts";
export { cuesToVtt } from "./vtt.ts";
export { assSubtitles } from "./ass/ass-subtitles.ts";
export { linkBundledFonts } from "./ass/ass-fonts.ts";
export { assFilter } from "./ass/ass-filter.ts";
export { layoutSubtitles, type SubtitleLayout } from "./layout/subtitle-layout.ts";
export { cuesRuleBreaks, ruleLimits, type RuleBreak } from "./layout/subtitle-rules.ts";
export { qualityReport } from "./quality-report.ts";
export { subtitleFiles } from "./subtitle-files.ts";
