import { createCanvas, ImageData } from "@napi-rs/canvas";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import type { PreviewRequest } from "@caption/shared/api/preview";
import { fontStack, registerBundledFonts } from "../render/fonts.ts";
import { decodePng, downscale } from "../render/rgba-image.ts";
import { ORIENTATIONS, SAMPLE_TIME, SAMPLE_WORDS, type Orientation } from "./sample-frame.ts";

const THUMB_FACTOR = 4;
const COLUMNS = 4;
const GAP = 16;
const LABEL_HEIGHT = 44;
const SHEET_COLOR = "#16191F";
const LABEL_COLOR = "#F2F4F7";
const LABEL_PX = 26;

const PORTRAIT = { width: ORIENTATIONS.portrait.width / THUMB_FACTOR, height: ORIENTATIONS.portrait.height / THUMB_FACTOR };
const LANDSCAPE = { width: ORIENTATIONS.landscape.width / THUMB_FACTOR, height: ORIENTATIONS.landscape.height / THUMB_FACTOR };
const CELL = { width: PORTRAIT.width + GAP + LANDSCAPE.width, height: LABEL_HEIGHT + PORTRAIT.height };

/** A PNG preview of the request (POST /v1/previews). */
export type PreviewPng = (request: PreviewRequest) => Promise<Buffer>;

/** The preview of a preset in the sheet: the sample caption frame (fixed words, fixed instant) over the checkerboard. */
export function sheetPreview(preset: PresetId, orientation: Orientation): PreviewRequest {
  return { preset, words: SAMPLE_WORDS.map((w) => ({ ...w })), at: SAMPLE_TIME, ...ORIENTATIONS[orientation], format: "png" };
}

/**
 * A contact sheet: for each preset, its id over its preview (POST /v1/previews: the sample caption frame)
 * in portrait (1080x1920) and landscape (1920x1080), each shrunk to a quarter. `onPreset` hears of each
 * preset as it is asked for. PNG bytes.
 */
export async function renderPresetsSheet(preview: PreviewPng, onPreset?: (preset: PresetId, index: number) => void): Promise<Buffer> {
  registerBundledFonts();
  const rows = Math.ceil(PRESET_IDS.length / COLUMNS);
  const canvas = createCanvas(GAP + COLUMNS * (CELL.width + GAP), GAP + rows * (CELL.height + GAP));
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = SHEET_COLOR;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = LABEL_COLOR;
  ctx.font = fontStack("Inter", 700, "normal", LABEL_PX);
  ctx.textBaseline = "middle";

  for (const [index, preset] of PRESET_IDS.entries()) {
    onPreset?.(preset, index);
    const x = GAP + (index % COLUMNS) * (CELL.width + GAP);
    const y = GAP + Math.floor(index / COLUMNS) * (CELL.height + GAP);
    ctx.fillText(preset, x, y + LABEL_HEIGHT / 2);
    const thumb = async (orientation: Orientation) => downscale(await decodePng(await preview(sheetPreview(preset, orientation))), THUMB_FACTOR);
    const [portrait, landscape] = [await thumb("portrait"), await thumb("landscape")];
    ctx.putImageData(new ImageData(portrait.data, portrait.width, portrait.height), x, y + LABEL_HEIGHT);
    ctx.putImageData(new ImageData(landscape.data, landscape.width, landscape.height), x + PORTRAIT.width + GAP, y + LABEL_HEIGHT);
  }
  return canvas.encodeSync("png");
}
