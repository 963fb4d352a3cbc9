import { test } from "node:test";
import assert from "node:assert/strict";
import type { Style } from "@caption/shared/api/style";
import type { Word } from "@caption/shared/api/transcript";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { captionGeometry } from "./caption-geometry.ts";
import { layoutCue } from "./caption-layout.ts";
import { skiaFontMeasure } from "./font-measure.ts";
import { buildStyledCues } from "./styled-cues.ts";

const text = "Every caption line is measured in the font it will be drawn with so that nothing spills over the edge of the frame";
const words: Word[] = text.split(" ").map((t, i) => ({ text: t, start: i * 0.3, end: i * 0.3 + 0.25 }));
const style = (s: Style = {}) => resolveStyle({ preset: "classic", style: { line_count: 100, ...s }, video: { width: 1080, height: 1920 } });

test("buildStyledCues: lines fit the style's line width at its size, with no need to shrink", () => {
  const resolved = style();
  const cues = buildStyledCues(words, resolved, 60);
  const measure = skiaFontMeasure(resolved);
  const { maxTextWidth } = captionGeometry(resolved);
  assert.ok(cues.flatMap((c) => c.lines).length > 3);
  for (const cue of cues) {
    const layout = layoutCue(cue, resolved, measure);
    assert.equal(layout.fontPx, resolved.font_size * resolved.final_scale);
    for (const line of layout.lines) assert.ok(line.width <= maxTextWidth, `${line.width} > ${maxTextWidth}`);
  }
});

test("buildStyledCues: uppercase and larger type hold fewer words per line", () => {
  const count = (s: Style) => buildStyledCues(words, style(s), 60).flatMap((c) => c.lines).length;
  assert.ok(count({ text_case: "uppercase" }) > count({}));
  assert.ok(count({ text_width: "small" }) > count({ text_width: "large" }));
});

test("buildStyledCues: cues never run past the video's end", () => {
  const cues = buildStyledCues(words, style(), 6.2);
  assert.ok(cues.every((c) => c.end <= 6.2));
});
