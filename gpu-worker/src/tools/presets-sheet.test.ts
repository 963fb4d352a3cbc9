import { test } from "node:test";
import assert from "node:assert/strict";
import { execa } from "execa";
import path from "node:path";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import type { PreviewRequest } from "@caption/shared/api/preview";
import { decodePng } from "../render/rgba-image.ts";
import { encodeRgbPng } from "../render/still-encoders.ts";
import { renderPresetsSheet, sheetPreview } from "./presets-sheet.ts";
import { SAMPLE_TIME, SAMPLE_WORDS } from "./sample-frame.ts";

const CLI = path.join(import.meta.dirname, "..", "cli", "presets-sheet.ts");

/** A flat picture per preset and orientation, in place of the service's preview: where each lands is what is tested. */
const shade = (preset: PresetId, width: number) => [PRESET_IDS.indexOf(preset) * 8, width > 1080 ? 200 : 100, 50];
async function flatPreview(request: PreviewRequest): Promise<Buffer> {
  const rgb = Buffer.alloc(request.width * request.height * 3);
  const [r, g, b] = shade(request.preset, request.width);
  for (let i = 0; i < rgb.length; i += 3) rgb.set([r!, g!, b!], i);
  return encodeRgbPng(request.width, request.height, rgb);
}

test("the sheet asks for each preset's sample frame in portrait and landscape and lays them out a quarter size, in catalog order", async () => {
  const asked: PreviewRequest[] = [];
  const announced: string[] = [];
  const sheet = await decodePng(await renderPresetsSheet(async (request) => (asked.push(request), flatPreview(request)), (preset) => announced.push(preset)));
  assert.deepEqual(announced, [...PRESET_IDS]);
  assert.equal(asked.length, 32);
  assert.deepEqual(asked[0], { preset: "classic", words: [...SAMPLE_WORDS], at: SAMPLE_TIME, width: 1080, height: 1920, format: "png" });
  assert.deepEqual(asked[1], sheetPreview("classic", "landscape"));
  // 4 columns of a portrait (270) and a landscape (480) thumbnail with 16 px gaps; 4 rows of label (44) + 480.
  assert.deepEqual([sheet.width, sheet.height], [16 + 4 * (270 + 16 + 480 + 16), 16 + 4 * (44 + 480 + 16)]);
  const pixel = (x: number, y: number) => [...sheet.data.subarray((y * sheet.width + x) * 4, (y * sheet.width + x) * 4 + 3)];
  assert.deepEqual(pixel(16 + 100, 16 + 44 + 100), shade("classic", 1080));
  assert.deepEqual(pixel(16 + 270 + 16 + 100, 16 + 44 + 100), shade("classic", 1920));
  // The last preset, background, is in the fourth row and column.
  const [x, y] = [16 + 3 * (270 + 16 + 480 + 16), 16 + 3 * (44 + 480 + 16)];
  assert.deepEqual(pixel(x + 270 + 16 + 100, y + 44 + 100), shade("background", 1920));
});

test("presets:sheet rejects unknown options, and --url without --key, with usage", async () => {
  for (const args of [["--bogus"], ["--url", "http://127.0.0.1:1"]]) {
    const result = await execa(process.execPath, [CLI, ...args], { reject: false, env: { API_URL: "", API_KEY: "" } });
    assert.equal(result.exitCode, 2, result.stderr);
    assert.match(result.stderr, /usage: presets-sheet/);
  }
});
