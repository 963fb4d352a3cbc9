// Frames laid down from word pictures (render/composed-words.ts) against the same frames drawn as text, at
// every picture change of the sample captions in both orientations: what a render sends (patches of only
// what changed, one painter through all cues) must match a whole repaint drawn as text, to the golden images'
// tolerance, compared over the band alone (stricter than over the whole frame).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { PresetId } from "@caption/shared/api/preset";
import type { Style } from "@caption/shared/api/style";
import { animationFor } from "../../render/animations/animation-for.ts";
import { CaptionPainter } from "../../render/caption-painter.ts";
import { scheduleFrames } from "../../render/frame-schedule.ts";
import { planCaptions } from "../../render/render-video.ts";
import { downscale } from "../../render/rgba-image.ts";
import { buildStyledCues } from "../../render/styled-cues.ts";
import { ORIENTATIONS, SAMPLE_DURATION, SAMPLE_WORDS, sampleStyle, type Orientation } from "../../tools/sample-frame.ts";
import { overBackdrop, PatchedBand } from "./band-picture.ts";
import { compareImages, GOLDEN_SHRINK, GOLDEN_TOLERANCE } from "./image-diff.ts";

const FRAME_RATE = 30;
// The animations that move, scale and fade whole words.
const PRESETS = ["smash", "ogre", "elegant", "glow", "push", "paper-ink"] as const satisfies readonly PresetId[];
// A soft shadow, offset at an angle, on any of them: every word casts one, from its picture where it can.
const SHADOWED: Style = { shadow: { enabled: true, color: "#1E3A8A", blur: 14, distance: 5, angle: 30 } };
// Pictures of a cue's words stay small: the largest cue of the sample holds no more than this (4 bytes a pixel).
const MAX_HELD_BYTES = 8 * 2 ** 20;

for (const preset of PRESETS) {
  for (const orientation of Object.keys(ORIENTATIONS) as Orientation[]) {
    for (const [variant, style] of [["its own style", undefined], ["a shadow", SHADOWED]] as const) {
      test(`${preset} ${orientation} with ${variant}: frames from word pictures match frames drawn as text`, () => {
        const resolved = sampleStyle(preset, ORIENTATIONS[orientation], style);
        const animation = animationFor(resolved.animation);
        assert.equal(animation.movesWholeWords, true);
        const { layouts, band } = planCaptions(buildStyledCues(SAMPLE_WORDS, resolved, SAMPLE_DURATION), resolved, SAMPLE_DURATION);
        const composed = new CaptionPainter(resolved, band, animation);
        const asText = new CaptionPainter(resolved, band, { ...animation, movesWholeWords: undefined });
        const shown = new PatchedBand(band);
        const schedule = scheduleFrames(
          layouts.map((layout) => ({ start: layout.cue.start, end: layout.cue.end, changeTimes: animation.changeTimes(layout, 1 / FRAME_RATE) })),
          { durationSeconds: SAMPLE_DURATION, frameRate: FRAME_RATE },
        );
        let compared = 0;
        let mostHeld = 0;
        for (const { cue, t } of schedule) {
          const layout = cue === null ? null : layouts[cue]!;
          const patch = composed.update(layout, t);
          const held = composed.heldPictures;
          // One cue's pictures at most: its words' text and shadow, in at most two looks (push's highlight).
          assert.ok(held.pictures <= 4 * (layout?.words.length ?? 0), `t ${t}: ${held.pictures} pictures held`);
          mostHeld = Math.max(mostHeld, held.pixels);
          if (patch === null) continue;
          shown.apply(patch);
          const expected = overBackdrop(band, asText.paint(layout, t), "straight");
          const comparison = compareImages(downscale(shown.overBackdrop(), GOLDEN_SHRINK), downscale(expected, GOLDEN_SHRINK), GOLDEN_TOLERANCE);
          assert.ok(comparison.matches, `t ${t}: ${comparison.differing} of ${comparison.pixels} pixels differ by more than ${GOLDEN_TOLERANCE.channel} (largest ${comparison.maxChannelDelta})`);
          compared++;
        }
        assert.ok(compared > layouts.length, `only ${compared} frames compared`);
        // Shadows, and glow's words fading in place, come from pictures: the comparison covered them.
        if (style !== undefined || preset === "elegant" || preset === "glow") assert.ok(mostHeld > 0, "no word pictures were drawn");
        assert.ok(mostHeld * 4 <= MAX_HELD_BYTES, `a cue held ${((mostHeld * 4) / 2 ** 20).toFixed(1)} MiB of pictures`);
      });
    }
  }
}
