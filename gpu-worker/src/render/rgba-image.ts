import { createCanvas, ImageData, loadImage } from "@napi-rs/canvas";

/** RGBA pixels, row by row; straight (not premultiplied) alpha. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

/**
 * Shrinks by an integer factor, each output pixel the mean of a factor×factor block (edge blocks use the
 * pixels they have). Plain arithmetic, so the result depends only on the input pixels.
 */
export function downscale(image: RgbaImage, factor: number): RgbaImage {
  if (!Number.isInteger(factor) || factor < 1) throw new RangeError(`downscale factor must be a positive integer, got ${factor}`);
  const width = Math.ceil(image.width / factor);
  const height = Math.ceil(image.height / factor);
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sums = [0, 0, 0, 0];
      let count = 0;
      for (let sy = y * factor; sy < Math.min(image.height, (y + 1) * factor); sy++) {
        for (let sx = x * factor; sx < Math.min(image.width, (x + 1) * factor); sx++) {
          const i = (sy * image.width + sx) * 4;
          for (let c = 0; c < 4; c++) sums[c]! += image.data[i + c]!;
          count++;
        }
      }
      const o = (y * width + x) * 4;
      for (let c = 0; c < 4; c++) data[o + c] = Math.round(sums[c]! / count);
    }
  }
  return { width, height, data };
}

/** PNG bytes of an opaque image (transparency would not survive Skia's premultiplied round trip exactly). */
export function encodePng(image: RgbaImage): Buffer {
  const canvas = createCanvas(image.width, image.height);
  canvas.getContext("2d").putImageData(new ImageData(image.data, image.width, image.height), 0, 0);
  return canvas.encodeSync("png");
}

export async function decodePng(png: Buffer): Promise<RgbaImage> {
  const picture = await loadImage(png);
  const canvas = createCanvas(picture.width, picture.height);
  const ctx = canvas.getContext("2d");
  ctx.drawImage(picture, 0, 0);
  return { width: picture.width, height: picture.height, data: ctx.getImageData(0, 0, picture.width, picture.height).data };
}
