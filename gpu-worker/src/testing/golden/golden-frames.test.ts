// Every preset's look, pinned: the sample caption frame (fixed words, fixed instant) in portrait 1080x1920 and
// landscape 1920x1080, shrunk to a third, against the PNGs in images/. UPDATE_GOLDEN=1 rewrites them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import { downscale } from "../../render/rgba-image.ts";
import { ORIENTATIONS, paintSampleFrame, sampleStyle, type Orientation } from "../../tools/sample-frame.ts";
import { matchGolden } from "./golden-file.ts";
import { GOLDEN_SHRINK, GOLDEN_TOLERANCE } from "./image-diff.ts";

const IMAGES_DIR = path.join(import.meta.dirname, "images");
const update = process.env.UPDATE_GOLDEN === "1";

let artifacts: Promise<string> | undefined;
const artifactsDir = () => (artifacts ??= mkdtemp(path.join(tmpdir(), "golden-")));

/** File name of a preset's golden image; `&` spelled out so the name is shell-friendly. */
function goldenName(preset: PresetId, orientation: Orientation): string {
  return `${preset.replace("&", "-and-")}-${orientation}`;
}

for (const preset of PRESET_IDS) {
  for (const orientation of Object.keys(ORIENTATIONS) as Orientation[]) {
    test(`${preset} ${orientation} matches its golden image`, async () => {
      const frame = paintSampleFrame(sampleStyle(preset, ORIENTATIONS[orientation]));
      const result = await matchGolden(downscale(frame.image, GOLDEN_SHRINK), {
        goldenPath: path.join(IMAGES_DIR, `${goldenName(preset, orientation)}.png`),
        update,
        tolerance: GOLDEN_TOLERANCE,
        artifactsDir,
      });
      if (result.status === "missing" || result.status === "mismatch") assert.fail(result.message);
    });
  }
}
