import { crc32, deflateSync } from "node:zlib";
import { createCanvas, ImageData } from "@napi-rs/canvas";

// Still previews as files. PNG is written here, lossless and quick: every row with the "Up" filter (a
// caption frame's rows repeat most of the row above), deflated at level 1; Skia's own PNG encoder takes
// several times as long on a 1080 × 1920 frame. WebP is Skia's, lossy: small pictures for a style picker.

const WEBP_QUALITY = 90;

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const UP_FILTER = 2;

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/** PNG bytes of `rgb` (3 bytes a pixel, row by row). */
export function encodeRgbPng(width: number, height: number, rgb: Uint8Array): Buffer {
  const stride = width * 3;
  if (rgb.length !== stride * height) throw new RangeError(`${rgb.length} bytes are no ${width}x${height} RGB picture`);
  const filtered = Buffer.allocUnsafe((stride + 1) * height);
  for (let row = 0; row < height; row++) {
    const out = row * (stride + 1);
    const from = row * stride;
    filtered[out] = UP_FILTER;
    if (row === 0) {
      filtered.set(rgb.subarray(0, stride), out + 1);
      continue;
    }
    for (let i = 0; i < stride; i++) filtered[out + 1 + i] = (rgb[from + i]! - rgb[from - stride + i]!) & 0xff;
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per sample
  header[9] = 2; // truecolour
  return Buffer.concat([SIGNATURE, chunk("IHDR", header), chunk("IDAT", deflateSync(filtered, { level: 1 })), chunk("IEND", Buffer.alloc(0))]);
}

/** Lossy WebP (quality 90) of `rgb`, encoded off the event loop by Skia. */
export async function encodeRgbWebp(width: number, height: number, rgb: Uint8Array): Promise<Buffer> {
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let i = 0, o = 0; i < rgb.length; i += 3, o += 4) {
    rgba[o] = rgb[i]!;
    rgba[o + 1] = rgb[i + 1]!;
    rgba[o + 2] = rgb[i + 2]!;
    rgba[o + 3] = 255;
  }
  const canvas = createCanvas(width, height);
  canvas.getContext("2d").putImageData(new ImageData(rgba, width, height), 0, 0);
  return canvas.encode("webp", WEBP_QUALITY);
}
