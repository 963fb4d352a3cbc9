import { once } from "node:events";
import { crc32, createDeflate } from "node:zlib";
import { type Canvas, createCanvas, ImageData } from "@napi-rs/canvas";

// Still previews as files. PNG is written here, lossless and quick: every row with the "Up" filter (a
// caption frame's rows repeat most of the row above; a background's filtered rows are kept, see
// StillRaster), deflated at level 1 off the event loop, in parts (a still's rows outside its caption band are
// the background's, never copied); Skia's own PNG encoder takes several times as long on a 1080 × 1920 frame.
// WebP is Skia's, lossy: small pictures for a style picker.

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const UP_FILTER = 2;
const WEBP_QUALITY = 90;
// Canvases whose encode is running. The encode reads the canvas's surface on the thread pool without holding
// it, and a collected canvas frees it: a use-after-free that crashed the process now and then
// (Brooooooklyn/canvas#1312, fixed only in 1.x). Held here, a canvas stays reachable until its encode is done.
const encoding = new Set<Canvas>();

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * Writes PNG rows [from, to) of an RGB picture `width` pixels wide into `filtered`, from its start (one filter
 * byte, then the row): row r is `rows(r)`, with the "Up" filter against `rows(r − 1)` (the first row as it is).
 */
export function upFilterRows(filtered: Buffer, width: number, span: { from: number; to: number }, rows: (row: number) => Uint8Array): void {
  const stride = width * 3;
  for (let row = span.from; row < span.to; row++) {
    const out = (row - span.from) * (stride + 1);
    const current = rows(row);
    if (row === 0) {
      filtered[out] = 0;
      filtered.set(current.subarray(0, stride), out + 1);
      continue;
    }
    const above = rows(row - 1);
    filtered[out] = UP_FILTER;
    for (let i = 0; i < stride; i++) filtered[out + 1 + i] = (current[i]! - above[i]!) & 0xff;
  }
}

/** One zlib stream of the parts in turn, as if they were one buffer. */
async function deflateParts(parts: readonly Uint8Array[]): Promise<Buffer> {
  const stream = createDeflate({ level: 1, chunkSize: 256 * 1024 });
  const out: Buffer[] = [];
  stream.on("data", (data: Buffer) => out.push(data));
  const ended = once(stream, "end");
  for (const part of parts) if (part.length > 0) stream.write(part);
  stream.end();
  await ended;
  return Buffer.concat(out);
}

/** PNG bytes of a truecolour picture from its filtered rows (upFilterRows), given as consecutive parts. */
export async function pngOfFilteredRows(width: number, height: number, filtered: readonly Uint8Array[]): Promise<Buffer> {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per sample
  header[9] = 2; // truecolour
  const data = await deflateParts(filtered);
  return Buffer.concat([SIGNATURE, chunk("IHDR", header), chunk("IDAT", data), chunk("IEND", Buffer.alloc(0))]);
}

/** PNG bytes of `rgb` (3 bytes a pixel, row by row). */
export function encodeRgbPng(width: number, height: number, rgb: Uint8Array): Promise<Buffer> {
  const stride = width * 3;
  if (rgb.length !== stride * height) throw new RangeError(`${rgb.length} bytes are no ${width}x${height} RGB picture`);
  const filtered = Buffer.allocUnsafe((stride + 1) * height);
  upFilterRows(filtered, width, { from: 0, to: height }, (row) => rgb.subarray(row * stride, (row + 1) * stride));
  return pngOfFilteredRows(width, height, [filtered]);
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
  encoding.add(canvas);
  try {
    return await canvas.encode("webp", WEBP_QUALITY);
  } finally {
    encoding.delete(canvas);
  }
}
