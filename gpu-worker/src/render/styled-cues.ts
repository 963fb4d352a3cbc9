import type { Word } from "@caption/shared/api/transcript";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { lineMeasure } from "./caption-geometry.ts";
import { skiaFontMeasure } from "./font-measure.ts";
import { buildCues, type Cue } from "./cue-builder.ts";

/** Cues for a transcript as the style will draw them: lines wrapped by the width of the text in its font. */
export function buildStyledCues(words: readonly Word[], style: ResolvedStyle, durationSeconds: number): Cue[] {
  return buildCues(words, { lineCount: style.line_count, ...lineMeasure(style, skiaFontMeasure(style)), endLimit: durationSeconds });
}
