import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { decodePng, encodePng, type RgbaImage } from "../../render/rgba-image.ts";
import { compareImages, diffImage, type ImageTolerance } from "./image-diff.ts";

export interface GoldenOptions {
  /** The committed PNG. */
  goldenPath: string;
  /** Write `image` as the new golden instead of comparing. */
  update: boolean;
  tolerance: ImageTolerance;
  /** Folder for `<name>.actual.png` and `<name>.diff.png` when the comparison fails. */
  artifactsDir: () => Promise<string>;
}

export type GoldenResult = { status: "match" | "updated" } | { status: "missing" | "mismatch"; message: string };

/** Compares a rendering with its committed golden PNG, or rewrites the golden when updating. */
export async function matchGolden(image: RgbaImage, options: GoldenOptions): Promise<GoldenResult> {
  const name = path.basename(options.goldenPath, ".png");
  if (options.update) {
    await mkdir(path.dirname(options.goldenPath), { recursive: true });
    await writeFile(options.goldenPath, encodePng(image));
    return { status: "updated" };
  }
  const png = await readFile(options.goldenPath).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (png === null) {
    return { status: "missing", message: `no golden image ${options.goldenPath}; run the test with UPDATE_GOLDEN=1 to create it` };
  }
  const expected = await decodePng(png);
  const comparison = compareImages(image, expected, options.tolerance);
  if (comparison.matches) return { status: "match" };

  const dir = await options.artifactsDir();
  const actualPath = path.join(dir, `${name}.actual.png`);
  await writeFile(actualPath, encodePng(image));
  const written = [actualPath];
  if (comparison.sameSize) {
    const diffPath = path.join(dir, `${name}.diff.png`);
    await writeFile(diffPath, encodePng(diffImage(image, expected, options.tolerance)));
    written.push(diffPath);
  }
  const what = comparison.sameSize
    ? `${comparison.differing} of ${comparison.pixels} pixels differ by more than ${options.tolerance.channel} (largest difference ${comparison.maxChannelDelta}; at most ${Math.floor(options.tolerance.pixelFraction * comparison.pixels)} may)`
    : `size ${image.width}x${image.height}, golden ${expected.width}x${expected.height}`;
  return {
    status: "mismatch",
    message: `${name} does not match ${options.goldenPath}: ${what}. Wrote ${written.join(" and ")}. If the change is intended, rerun with UPDATE_GOLDEN=1 and review the new PNGs.`,
  };
}
