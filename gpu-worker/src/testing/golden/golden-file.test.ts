import { test } from "node:test";
import assert from "node:assert/strict";
import { access, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { decodePng, type RgbaImage } from "../../render/rgba-image.ts";
import { matchGolden } from "./golden-file.ts";
import { compareImages, diffImage } from "./image-diff.ts";

const dir = await mkdtemp(path.join(tmpdir(), "golden-file-"));
test.after(() => rm(dir, { recursive: true, force: true }));

const tolerance = { channel: 8, pixelFraction: 0.01 };

function gradient(width = 40, height = 30): RgbaImage {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) data.set([(i * 7) % 256, (i * 3) % 256, 90, 255], i * 4);
  return { width, height, data };
}

function withSquare(image: RgbaImage, size: number, rgb: [number, number, number]): RgbaImage {
  const data = new Uint8ClampedArray(image.data);
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) data.set([...rgb, 255], (y * image.width + x) * 4);
  return { ...image, data };
}

test("compareImages: small differences pass, more than the allowed fraction of pixels beyond the channel tolerance fail", () => {
  const base = gradient();
  assert.equal(compareImages(base, base, tolerance).differing, 0);
  const nudged = { ...base, data: base.data.map((v, i) => (i % 4 === 3 ? v : Math.min(255, v + 8))) };
  assert.equal(compareImages(nudged, base, tolerance).matches, true);
  // 1200 pixels, 1 % allowed = 12: a 3x3 change passes, a 4x4 one does not.
  assert.equal(compareImages(withSquare(base, 3, [255, 255, 255]), base, tolerance).matches, true);
  const failing = compareImages(withSquare(base, 4, [255, 255, 255]), base, tolerance);
  assert.equal(failing.matches, false);
  assert.equal(failing.differing, 16);
  assert.equal(compareImages(gradient(41, 30), base, tolerance).sameSize, false);
});

test("diffImage marks differing pixels red", () => {
  const base = gradient();
  const diff = diffImage(withSquare(base, 2, [0, 255, 0]), base, tolerance);
  assert.deepEqual([...diff.data.slice(0, 4)], [255, 0, 0, 255]);
  const far = (10 * base.width + 10) * 4;
  assert.equal(diff.data[far], diff.data[far + 1]);
});

test("matchGolden: writes the golden when updating, then matches it, and on a mismatch writes actual and diff PNGs it names", async () => {
  const goldenPath = path.join(dir, "sample.png");
  const artifactsDir = async () => dir;
  const image = gradient();
  assert.deepEqual(await matchGolden(image, { goldenPath, update: true, tolerance, artifactsDir }), { status: "updated" });
  assert.deepEqual(await matchGolden(image, { goldenPath, update: false, tolerance, artifactsDir }), { status: "match" });

  const result = await matchGolden(withSquare(image, 6, [255, 0, 255]), { goldenPath, update: false, tolerance, artifactsDir });
  assert.equal(result.status, "mismatch");
  const actualPath = path.join(dir, "sample.actual.png");
  const diffPath = path.join(dir, "sample.diff.png");
  assert.ok("message" in result && result.message.includes(actualPath) && result.message.includes(diffPath), JSON.stringify(result));
  await access(diffPath);
  const written = await decodePng(await readFile(actualPath));
  assert.deepEqual([...written.data.slice(0, 4)], [255, 0, 255, 255]);
});

test("matchGolden: a missing golden says how to create it", async () => {
  const result = await matchGolden(gradient(), { goldenPath: path.join(dir, "absent.png"), update: false, tolerance, artifactsDir: async () => dir });
  assert.equal(result.status, "missing");
  assert.match("message" in result ? result.message : "", /UPDATE_GOLDEN=1/);
});
