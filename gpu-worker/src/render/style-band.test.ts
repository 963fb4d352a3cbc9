import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { PRESET_IDS } from "@caption/shared/api/preset";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { animationFor } from "./animations/animation-for.ts";
import { layoutCue } from "./caption-layout.ts";
import { buildStyledCues } from "./styled-cues.ts";
import { skiaFontMeasure } from "./font-measure.ts";
import { styleBand } from "./style-band.ts";

const VIDEOS = [
  { width: 1080, height: 1920 },
  { width: 1920, height: 1080 },
  { width: 720, height: 720 },
];
const VOCABULARY = ["I", "we", "Hello,", "captions", "WWWWWWWWWWWWWWWW", "Straße", "naïve", "déjà", "ÉCLAIR", "gjpqy", "漢字", "مرحبا", "...", "supercalifragilisticexpialidocious"];

test("every cue a style's transcript can make lies inside the band known before any cue", () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...PRESET_IDS),
      fc.constantFrom(...VIDEOS),
      fc.record({ line_count: fc.constantFrom(0, 1, 2, 3), position: fc.constantFrom("top", "center", "bottom"), font_style: fc.constantFrom("normal", "italic") }, { requiredKeys: [] }),
      fc.array(fc.constantFrom(...VOCABULARY), { minLength: 1, maxLength: 40 }),
      (preset, video, overrides, texts) => {
        const style = resolveStyle({ preset, style: overrides, video });
        const measure = skiaFontMeasure(style);
        const animation = animationFor(style.animation);
        const band = styleBand(style, measure, animation);
        const words = texts.map((text, i) => ({ text, start: i * 0.4, end: i * 0.4 + 0.3 }));
        for (const cue of buildStyledCues(words, style, 60)) {
          const { ink } = layoutCue(cue, style, measure, animation);
          const inside = ink.top >= band.y - 1 && ink.bottom <= band.y + band.height + 1 && ink.left >= band.x - 1 && ink.right <= band.x + band.width + 1;
          assert.ok(inside, `${preset} ${video.width}x${video.height} ${JSON.stringify(overrides)}: ink ${JSON.stringify(ink)} outside band ${JSON.stringify(band)} for ${JSON.stringify(cue.lines.map((l) => l.words.map((w) => w.text)))}`);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test("a style with up to 100 lines a cue gets the whole frame", () => {
  const style = resolveStyle({ preset: "classic", style: { line_count: 100 }, video: { width: 1080, height: 1920 } });
  assert.deepEqual(styleBand(style, skiaFontMeasure(style), animationFor(style.animation)), { x: 0, y: 0, width: 1080, height: 1920 });
});
