import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { bandFor, type Band } from "./band-layout.ts";
import { layoutCue, type LayoutRoom } from "./caption-layout.ts";
import type { Cue } from "./cue-builder.ts";
import type { FontMeasure } from "./font-measure.ts";

// Beyond this many lines a cue may shrink to fill the frame's height: the band takes all of it.
const MOST_LINES_BOUNDED = 3;

/**
 * The band that holds every cue this style can show, known before any cue is: what a render that starts
 * while recognition still runs overlays. Across the frame's whole width (a line's width depends on its
 * text); vertically, the extents of the fewest and the most lines a cue may hold at the style's full font
 * size, which bound those of every real cue (smaller type, fewer lines and the same anchoring only shrink
 * the block towards its anchor; the painting room above and below the block does not depend on the text).
 */
export function styleBand(style: ResolvedStyle, measure: FontMeasure, room: LayoutRoom): Band {
  const { width, height } = style.video;
  const mostLines = style.line_count === 0 ? 1 : style.line_count;
  if (mostLines > MOST_LINES_BOUNDED) return bandFor([{ left: 0, right: width, top: 0, bottom: height }], style.video);
  const extents = Array.from({ length: mostLines }, (_, i) => layoutCue(narrowLines(i + 1), style, measure, room).ink);
  return bandFor(extents.map((ink) => ({ ...ink, left: 0, right: width })), style.video);
}

/** A cue of `count` one-letter lines: nothing narrows its font size, so its block is as tall as that many lines get. */
const narrowLines = (count: number): Cue => ({
  start: 0,
  end: 1,
  lines: Array.from({ length: count }, () => ({ words: [{ text: "I", start: 0, end: 1 }] })),
});
