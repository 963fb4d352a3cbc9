import { createCanvas, ImageData } from "@napi-rs/canvas";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import { fontStack, registerBundledFonts } from "../render/fonts.ts";
import { downscale } from "../render/rgba-image.ts";
import { ORIENTATIONS, paintSampleFrame, sampleStyle, type Orientation } from "./sample-frame.ts";

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

/**
 * A contact sheet: for each preset, its id over the sample caption frame in portrait (1080x1920) and landscape
 * (1920x1080), each shrunk to a quarter. `onPreset` hears of each preset as it is drawn. PNG bytes.
 */
export function renderPresetsSheet(onPreset?: (preset: PresetId, index: number) => void): Buffer {
  registerBundledFonts();
  const rows = Math.ceil(PRESET_IDS.length / COLUMNS);
  const canvas = createCanvas(GAP + COLUMNS * (CELL.width + GAP), GAP + rows * (CELL.height + GAP));
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = SHEET_COLOR;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = LABEL_COLOR;
  ctx.font = fontStack("Inter", 700, "normal", LABEL_PX);
  ctx.textBaseline = "middle";

  PRESET_IDS.forEach((preset, index) => {
    onPreset?.(preset, index);
    const x = GAP + (index % COLUMNS) * (CELL.width + GAP);
    const y = GAP + Math.floor(index / COLUMNS) * (CELL.height + GAP);
    ctx.fillText(preset, x, y + LABEL_HEIGHT / 2);
    const thumb = (orientation: Orientation) => downscale(paintSampleFrame(sampleStyle(preset, ORIENTATIONS[orientation])).image, THUMB_FACTOR);
    const portrait = thumb("portrait");
    const landscape = thumb("landscape");
    ctx.putImageData(new ImageData(portrait.data, portrait.width, portrait.height), x, y + LABEL_HEIGHT);
    ctx.putImageData(new ImageData(landscape.data, landscape.width, landscape.height), x + PORTRAIT.width + GAP, y + LABEL_HEIGHT);
  });
  return canvas.encodeSync("png");
}
