// An animation is one module with two faces: a new one, written here and nowhere else, is painted by the
// renderer (its Skia face) and written into ASS scripts (its ASS face) without touching any other file.
import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { wordStarts } from "../../render/animations/ass-look.ts";
import { plainLook, wordStartTimes, type CaptionAnimation } from "../../render/animations/caption-animation.ts";
import { bandFor } from "../../render/band-layout.ts";
import { layoutCue } from "../../render/caption-layout.ts";
import { CaptionPainter } from "../../render/caption-painter.ts";
import type { Cue } from "../../render/cue-builder.ts";
import { skiaFontMeasure } from "../../render/font-measure.ts";
import { assSubtitles } from "./ass-subtitles.ts";

/** A dummy animation: words already spoken turn red and stay red. */
const spokenRed: CaptionAnimation = {
  overshootEm: 0,
  frame: (layout, t, style) => ({ words: layout.words.map((word) => ({ ...plainLook(style), color: word.start <= t ? "#FF0000" : style.text_color })), boxes: [] }),
  changeTimes: wordStartTimes,
  ass: {
    leavesOut: null,
    switchTimes: wordStarts,
    look: (word, { t, plain }) => (word.start <= t ? { ...plain, color: "#FF0000" } : plain),
  },
};

const video = { width: 540, height: 960 };
const style = resolveStyle({ preset: "classic", style: { text_color: "#FFFFFF", outline: { thickness: 0 } }, video });
const cue: Cue = { start: 1, end: 2, lines: [{ words: [{ text: "Hello", start: 1, end: 1.4 }, { text: "world", start: 1.5, end: 2 }] }] };

test("the Skia face: the renderer paints the spoken word red, the next one in the text colour", () => {
  const layout = layoutCue(cue, style, skiaFontMeasure(style), spokenRed);
  const band = bandFor([layout.ink], video);
  const pixels = new CaptionPainter(style, band, spokenRed).paint(layout, 1.2);
  const [hello, world] = layout.words.map((word) => {
    let red = 0;
    let white = 0;
    for (let y = 0; y < band.height; y++) {
      for (let x = Math.ceil(word.x - band.x); x < word.x + word.width - band.x; x++) {
        const i = (y * band.width + x) * 4;
        if (pixels[i + 3]! < 255) continue;
        if (pixels[i]! > 240 && pixels[i + 1]! < 15 && pixels[i + 2]! < 15) red++;
        if (pixels[i]! > 240 && pixels[i + 1]! > 240 && pixels[i + 2]! > 240) white++;
      }
    }
    return { red, white };
  });
  assert.ok(hello!.red > 100 && hello!.white === 0, `Hello: ${JSON.stringify(hello)}`);
  assert.ok(world!.white > 100 && world!.red === 0, `world: ${JSON.stringify(world)}`);
  assert.deepEqual(spokenRed.changeTimes(layout, 1 / 30), [1, 1.5]);
});

test("the ASS face: the script switches each word to red from its start, one event per state", () => {
  const dialogues = assSubtitles([cue], style, spokenRed)
    .split("\n")
    .filter((line) => line.startsWith("Dialogue: "))
    .map((line) => line.split(",").slice(1, 3).concat(line.split(",").slice(9).join(",")));
  assert.deepEqual(dialogues, [
    ["0:00:01.00", "0:00:01.50", "{\\c&H0000FF&}Hello {\\c&HFFFFFF&}world"],
    ["0:00:01.50", "0:00:02.00", "{\\c&H0000FF&}Hello world"],
  ]);
});
