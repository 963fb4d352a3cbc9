import type { Word } from "@caption/shared/api/transcript";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { lineMeasure } from "./caption-geometry.ts";
import { skiaFontMeasure } from "./font-measure.ts";
import { buildCues, type Cue, type CueBuildOptions } from "./cue-builder.ts";
import { CueStream } from "./cue-stream.ts";

/** How the style groups words into cues: lines wrapped by the width of the text in its font. */
const styledCueOptions = (style: ResolvedStyle, durationSeconds: number): CueBuildOptions => ({
  lineCount: style.line_count,
  ...lineMeasure(style, skiaFontMeasure(style)),
  endLimit: durationSeconds,
});

/** Cues for a transcript as the style will draw them. */
export function buildStyledCues(words: readonly Word[], style: ResolvedStyle, durationSeconds: number): Cue[] {
  return buildCues(words, styledCueOptions(style, durationSeconds));
}

/** The same cues, handed out as recognition produces the words (see CueStream). */
export function styledCueStream(style: ResolvedStyle, durationSeconds: number): CueStream {
  return new CueStream(styledCueOptions(style, durationSeconds));
}
