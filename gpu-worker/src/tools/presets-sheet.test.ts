import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { PRESET_IDS } from "@caption/shared/api/preset";
import { decodePng, downscale, type RgbaImage } from "../render/rgba-image.ts";
import { renderPresetsSheet } from "./presets-sheet.ts";
import { ORIENTATIONS, paintSampleFrame, sampleStyle } from "./sample-frame.ts";

const CLI = path.join(import.meta.dirname, "..", "cli", "presets-sheet.ts");
const dir = await mkdtemp(path.join(tmpdir(), "presets-sheet-"));
test.after(() => rm(dir, { recursive: true, force: true }));

/** Whether `small` appears in `sheet` with its top-left corner at (x, y). */
function containsAt(sheet: RgbaImage, small: RgbaImage, x: number, y: number): boolean {
  for (let row = 0; row < small.height; row++) {
    const from = ((y + row) * sheet.width + x) * 4;
    const line = sheet.data.subarray(from, from + small.width * 4);
    if (!line.every((v, i) => v === small.data[row * small.width * 4 + i])) return false;
  }
  return true;
}

test("the sheet holds every preset in portrait and landscape at a quarter size, in catalog order", async () => {
  const announced: string[] = [];
  const sheet = await decodePng(renderPresetsSheet((preset) => announced.push(preset)));
  assert.deepEqual(announced, [...PRESET_IDS]);
  // 4 columns of a portrait (270) and a landscape (480) thumbnail with 16 px gaps; 4 rows of label (44) + 480.
  assert.deepEqual([sheet.width, sheet.height], [16 + 4 * (270 + 16 + 480 + 16), 16 + 4 * (44 + 480 + 16)]);
  const thumb = (preset: (typeof PRESET_IDS)[number], orientation: "portrait" | "landscape") =>
    downscale(paintSampleFrame(sampleStyle(preset, ORIENTATIONS[orientation])).image, 4);
  assert.ok(containsAt(sheet, thumb("classic", "portrait"), 16, 16 + 44));
  assert.ok(containsAt(sheet, thumb("classic", "landscape"), 16 + 270 + 16, 16 + 44));
  // The last preset, background, is in the fourth row and column.
  const x = 16 + 3 * (270 + 16 + 480 + 16);
  const y = 16 + 3 * (44 + 480 + 16);
  assert.ok(containsAt(sheet, thumb("background", "landscape"), x + 270 + 16, y + 44));
  assert.ok(!containsAt(sheet, thumb("classic", "landscape"), x + 270 + 16, y + 44));
});

test("presets:sheet writes the PNG to --out, relative to the caller's directory, and prints its path", async () => {
  const { stdout, stderr } = await execa(process.execPath, [CLI, "--out", "sheet.png"], { env: { INIT_CWD: dir } });
  const out = path.join(dir, "sheet.png");
  assert.equal(stdout.trim(), out);
  assert.match(stderr, /\[16\/16\] background/);
  const png = await readFile(out);
  assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from("PNG")]);
  assert.ok(png.length < 1.5 * 1024 * 1024, `${png.length} bytes`);
});

test("presets:sheet rejects unknown options with usage", async () => {
  const result = await execa(process.execPath, [CLI, "--bogus"], { reject: false });
  assert.equal(result.exitCode, 2);
  assert.match(result.stderr, /usage: presets-sheet/);
});
