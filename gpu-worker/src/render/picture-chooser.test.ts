import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Word } from "@caption/shared/api/transcript";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { PictureChooser } from "./picture-chooser.ts";
import { posterInstant, stripInstants } from "./picture-instants.ts";
import { planCaptions } from "./render-video.ts";
import { buildStyledCues } from "./styled-cues.ts";

// The chooser, cue by cue, against the rules applied to all the cues at once (render/picture-instants.ts):
// the same instants, every frame asked for before the render could have passed it.

const wordsArb = fc
  .array(fc.record({ gap: fc.double({ min: 0, max: 4, noNaN: true }), length: fc.double({ min: 0.01, max: 1, noNaN: true }), text: fc.constantFrom("we", "captions", "Hello.", "the", "video!", "longerword", "a") }), { maxLength: 50 })
  .map((drafts) => {
    let t = 0;
    return drafts.map(({ gap, length, text }): Word => {
      const start = t + gap;
      t = start + length;
      return { text, start, end: t };
    });
  });

function chooseAll(preset: "classic" | "smash" | "karaoke" | "elegant", words: readonly Word[], durationSeconds: number, frameRate: number) {
  const style = resolveStyle({ preset, video: { width: 360, height: 640 } });
  const { layouts } = planCaptions(buildStyledCues(words, style, durationSeconds), style, durationSeconds);
  const chooser = new PictureChooser({ style, durationSeconds, frameRate });
  const asked = [...layouts.map((layout) => chooser.add(layout)), chooser.finish()];
  return { timeline: { layouts, style, durationSeconds, frameRate }, chooser, asked };
}

test("cue by cue, the chooser ends on the instants chosen from all the cues, each frame asked for in time", () => {
  fc.assert(
    fc.property(
      fc.constantFrom("classic", "smash", "karaoke", "elegant" as const),
      wordsArb,
      fc.double({ min: 0.5, max: 40, noNaN: true }),
      fc.constantFrom(24, 30, 30000 / 1001, 60),
      (preset, words, durationSeconds, frameRate) => {
        const { timeline, chooser, asked } = chooseAll(preset, words, durationSeconds, frameRate);
        const chosen = chooser.chosen();
        assert.equal(chosen.poster.at, posterInstant(timeline));
        assert.deepEqual(chosen.strip.map((s) => s.at), stripInstants(timeline));
        // Frames ascend over all calls, none before the frame a call before settled, and the take of each
        // picture is the frame of its instant.
        const frames = asked.flatMap((a) => a.frames);
        assert.deepEqual(frames, [...frames].sort((a, b) => a - b));
        assert.equal(new Set(frames).size, frames.length);
        asked.forEach((a, i) => assert.ok(i === 0 || a.frames.every((f) => f >= asked[i - 1]!.settledFrame), `call ${i}`));
        for (const picture of [chosen.poster, ...chosen.strip]) assert.equal(frames[picture.take], chooser.frameOf(picture.at));
      },
    ),
    { numRuns: 300 },
  );
});

test("a fuller caption later in the first 10 s is taken again; without any caption the fallbacks are taken as their time passes", () => {
  const words = (text: string, from: number) => text.split(" ").map((word, i) => ({ text: word, start: from + i * 0.4, end: from + i * 0.4 + 0.35 }));
  const { chooser, asked } = chooseAll("classic", [...words("Hi there.", 0.5), ...words("This one holds the most words of all.", 3)], 20, 30);
  const chosen = chooser.chosen();
  assert.ok(chosen.poster.at >= 3, "the second sentence has more caption");
  assert.ok(asked.flatMap((a) => a.frames).length > 9, "the first sentence's moment was taken too, before the second was known");

  const silent = chooseAll("classic", [], 16, 30);
  const { poster, strip } = silent.chooser.chosen();
  assert.equal(poster.at, 5);
  assert.deepEqual(strip.map((s) => s.at), [1, 3, 5, 7, 9, 11, 13, 15]);
  assert.equal(poster.take, strip[2]!.take, "one frame serves both");
  assert.deepEqual(silent.asked, [{ frames: [30, 90, 150, 210, 270, 330, 390, 450], settledFrame: 480 }]);
});
