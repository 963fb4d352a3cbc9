import assert from "node:assert/strict";
import { test } from "node:test";
import { loadImage } from "@napi-rs/canvas";
import { decodePng } from "./rgba-image.ts";
import { encodeRgbPng, encodeRgbWebp } from "./still-encoders.ts";
import { StillRaster } from "./still-raster.ts";
import { checkerboard, frameToRgb, overlayCaptions } from "./yuv-frame.ts";
import { YuvaPicture } from "./yuva-picture.ts";

const [WIDTH, HEIGHT] = [97, 61];
const rgb = Buffer.from(Array.from({ length: WIDTH * HEIGHT * 3 }, (_, i) => (i * 7919) % 256));

test("a PNG holds the RGB pixels exactly", async () => {
  const decoded = await decodePng(await encodeRgbPng(WIDTH, HEIGHT, rgb));
  assert.deepEqual([decoded.width, decoded.height], [WIDTH, HEIGHT]);
  for (let p = 0; p < WIDTH * HEIGHT; p++) {
    assert.deepEqual([...decoded.data.subarray(p * 4, p * 4 + 4)], [rgb[p * 3], rgb[p * 3 + 1], rgb[p * 3 + 2], 255], `pixel ${p}`);
  }
});

test("a WebP is a picture of the size", async () => {
  const picture = await loadImage(await encodeRgbWebp(WIDTH, HEIGHT, rgb));
  assert.deepEqual([picture.width, picture.height], [WIDTH, HEIGHT]);
});

test("the checkerboard is two neutral greys, #808080 and #5F5F5F after conversion", () => {
  const frame = checkerboard(1080, 1920);
  const pixels = frameToRgb(frame);
  const at = (x: number, y: number) => [...pixels.subarray((y * 1080 + x) * 3, (y * 1080 + x) * 3 + 3)];
  assert.deepEqual(at(0, 0), [128, 128, 128]);
  assert.deepEqual(at(28, 0), [95, 95, 95]);
  assert.deepEqual(at(28, 28), [128, 128, 128]);
});

test("a raster's stills, converted and filtered only in the band, are the stills of the whole captioned frame", async () => {
  // The second frame has an odd height, and its second band runs past the last row.
  const bands = [{ x: 10, y: 20, width: 40, height: 16 }, { x: 0, y: HEIGHT + 1 - 20, width: 60, height: 20 }];
  const cases = [HEIGHT + 1, HEIGHT].flatMap((height) => bands.map((band) => ({ height, band })));
  for (const { height, band } of cases) {
    const raster = new StillRaster(checkerboard(WIDTH + 3, height));
    const picture = new YuvaPicture(band.width, band.height);
    const rgba = new Uint8Array(band.width * band.height * 4).map((_, i) => (i % 4 === 3 ? (i * 13) % 256 : (i * 31) % 200));
    for (let p = 0; p < rgba.length; p += 4) for (let c = 0; c < 3; c++) rgba[p + c] = Math.min(rgba[p + c]!, rgba[p + 3]!);
    picture.update({ area: { x: 0, y: 0, width: band.width, height: band.height }, stride: band.width, rgba });
    const whole = raster.frame.clone();
    overlayCaptions(whole, picture, band);
    const rgb = frameToRgb(whole);
    assert.ok((await raster.png(picture, band)).equals(await encodeRgbPng(whole.width, whole.height, rgb)), JSON.stringify({ height, band }));
    const webp = await loadImage(await raster.webp(picture, band));
    assert.deepEqual([webp.width, webp.height], [whole.width, whole.height]);
  }
});
