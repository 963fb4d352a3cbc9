import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runFfmpeg } from "../media/ffmpeg.ts";
import { assembleProresFrame, parseProresFrame, PRORES_SLICE_ROW } from "../media/prores-frames.ts";
import { PRORES_4444_ARGS, ProresTileEncoder, readProresFrames } from "../media/prores-tile-encoder.ts";
import { YuvaPicture } from "./yuva-picture.ts";
import { Yuva444Strip, type ChangedTile } from "./yuva444-strip.ts";

const dir = await mkdtemp(join(tmpdir(), "yuva444-strip-"));
test.after(() => rm(dir, { recursive: true, force: true }));

// 360 wide: 23 macroblocks, tile columns of 128, 128 and 104 pixels (the last coded as slices of 4, 2 and 1
// macroblocks); 630 high: a last row of slices 6 pixels high. The band reaches the frame's bottom.
const [WIDTH, HEIGHT] = [360, 630];
const BAND = { x: 40, y: 500, width: 300, height: 130 };

/** Premultiplied RGBA full of detail and every alpha, so that every slice is coded densely. */
function patterned(width: number, height: number, seed: number): Uint8Array {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const alpha = (x * 7 + y * 3 + seed) % 256;
      const at = (y * width + x) * 4;
      rgba.set([(alpha * ((x * 13 + seed) % 256)) / 255, (alpha * ((y * 29) % 256)) / 255, (alpha * (((x ^ y) * 5) % 256)) / 255, alpha], at);
    }
  }
  return rgba;
}

async function encodeWhole(name: string, picture: Buffer): Promise<Buffer> {
  const [input, output] = [join(dir, `${name}.yuva444p`), join(dir, `${name}.prores`)];
  await writeFile(input, picture);
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuva444p", "-s", `${WIDTH}x${HEIGHT}`, "-i", input, ...PRORES_4444_ARGS, "-f", "rawvideo", output] });
  return readFile(output);
}

/** The whole frame's yuva444p planes: transparent, with the tiles' rows that lie in the frame. */
function wholePicture(strip: Yuva444Strip, tiles: readonly ChangedTile[]): Buffer {
  const plane = WIDTH * HEIGHT;
  const picture = Buffer.concat([Buffer.alloc(plane, 16), Buffer.alloc(2 * plane, 128), Buffer.alloc(plane, 0)]);
  for (const { row, column, picture: tile } of tiles) {
    const { x, width } = strip.columns[column]!;
    for (let p = 0; p < 4; p++) {
      for (let k = 0; k < PRORES_SLICE_ROW && row * PRORES_SLICE_ROW + k < HEIGHT; k++) {
        const from = (p * PRORES_SLICE_ROW + k) * width;
        tile.copy(picture, p * plane + (row * PRORES_SLICE_ROW + k) * WIDTH + x, from, from + width);
      }
    }
  }
  return picture;
}

test("tiles coded apart and put into the empty frame are the bytes ProRes gives the whole picture, edges included", async () => {
  const strip = new Yuva444Strip({ width: WIDTH, height: HEIGHT }, BAND);
  assert.deepEqual(strip.columns.map((c) => [c.x, c.width, c.firstSlice, c.slices]), [[0, 128, 0, 1], [128, 128, 1, 1], [256, 104, 2, 3]]);
  strip.update({ area: { x: 0, y: 0, width: BAND.width, height: BAND.height }, stride: BAND.width, rgba: patterned(BAND.width, BAND.height, 1) });
  const tiles = strip.takeChanged();
  // Rows 31–39 (the band from row 500 to the bottom), every column.
  assert.deepEqual([...new Set(tiles.map((t) => t.row))], [31, 32, 33, 34, 35, 36, 37, 38, 39]);
  assert.equal(tiles.length, 27);

  const encoders = new Map<number, ProresTileEncoder>();
  for (const tile of tiles) {
    const width = strip.columns[tile.column]!.width;
    if (!encoders.has(width)) encoders.set(width, new ProresTileEncoder(join(dir, `tiles-${width}`), width, {}));
    await encoders.get(width)!.encode(tile.picture);
  }
  await Promise.all([...encoders.values()].map((encoder) => encoder.finish()));
  const coded = new Map<number, Buffer[]>();
  for (const [width, encoder] of encoders) {
    const frames: Buffer[] = [];
    for await (const frame of readProresFrames(encoder.path)) frames.push(frame);
    coded.set(width, frames);
  }
  const base = parseProresFrame(await encodeWhole("empty", wholePicture(strip, [])));
  const slices = [...base.slices];
  for (const tile of tiles) {
    const column = strip.columns[tile.column]!;
    const tileSlices = parseProresFrame(coded.get(column.width)!.shift()!).slices;
    assert.equal(tileSlices.length, column.slices);
    slices.splice(tile.row * base.slicesPerRow + column.firstSlice, column.slices, ...tileSlices);
  }
  const whole = await encodeWhole("whole", wholePicture(strip, tiles));
  assert.ok(assembleProresFrame(base, slices).equals(whole), "the assembled frame's bytes differ from the whole picture's");
});

test("only the tiles a patch reaches whose pixels changed are taken again", () => {
  const strip = new Yuva444Strip({ width: WIDTH, height: HEIGHT }, BAND);
  const rgba = patterned(BAND.width, BAND.height, 2);
  strip.update({ area: { x: 0, y: 0, width: BAND.width, height: BAND.height }, stride: BAND.width, rgba });
  assert.equal(strip.takeChanged().length, 27);
  assert.deepEqual(strip.takeChanged(), []);
  // The same pixels painted again change nothing.
  strip.update({ area: { x: 0, y: 0, width: BAND.width, height: BAND.height }, stride: BAND.width, rgba });
  assert.deepEqual(strip.takeChanged(), []);
  // A 10 × 4 patch at band (100, 20): frame columns 140–149 (tile column 1), rows 520–523 (slice row 32).
  strip.update({ area: { x: 100, y: 20, width: 10, height: 4 }, stride: 10, rgba: new Uint8Array(10 * 4 * 4).fill(255) });
  assert.deepEqual(strip.takeChanged().map(({ row, column }) => [row, column]), [[32, 1]]);
});

test("colours as the 4:2:0 picture converts them, per pixel: the same luma, and the chroma of a flat colour", () => {
  const strip = new Yuva444Strip({ width: WIDTH, height: HEIGHT }, { x: 0, y: 0, width: 16, height: 16 });
  const picture = new YuvaPicture(16, 16);
  const rgba = new Uint8Array(16 * 16 * 4);
  for (let i = 0; i < 256; i++) rgba.set(i < 128 ? [200, 40, 90, 255] : [(i * 3) % 128, 64, 20, 128 + (i % 128)], i * 4);
  const patch = { area: { x: 0, y: 0, width: 16, height: 16 }, stride: 16, rgba };
  strip.update(patch);
  picture.update(patch);
  const [tile] = strip.takeChanged();
  const plane = 16 * 128;
  for (let y = 0; y < 16; y++) {
    for (let x = 0; x < 16; x++) {
      assert.equal(tile!.picture[y * 128 + x], picture.bytes[y * 16 + x], `luma at ${x},${y}`);
      assert.equal(tile!.picture[3 * plane + y * 128 + x], rgba[(y * 16 + x) * 4 + 3], `alpha at ${x},${y}`);
    }
  }
  // The top half is one flat colour: its chroma is the 4:2:0 picture's.
  assert.equal(tile!.picture[plane + 2 * 128 + 2], picture.bytes[256 + 8 + 1]);
  assert.equal(tile!.picture[2 * plane + 2 * 128 + 2], picture.bytes[256 + 64 + 8 + 1]);
});
