import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { FONT_FAMILIES, type FontFamily } from "@caption/shared/api/style";
import { captionFaceFiles, type FaceFile } from "../../render/fonts.ts";

/**
 * The line box libass gives a face: it sizes it so OS/2 usWinAscent + usWinDescent span `Fontsize` pixels
 * (GDI's rule), and lines are that far apart. Per em, as read from the bundled TTFs (every face of a family
 * has the same values); the test re-reads them.
 */
export const WIN_METRICS_EM: Readonly<Record<FontFamily, { ascent: number; descent: number }>> = {
  "Inter": { ascent: 2269 / 2048, descent: 660 / 2048 },
  "Urbanist": { ascent: 2120 / 2000, descent: 500 / 2000 },
  "Rubik": { ascent: 1066 / 1000, descent: 466 / 1000 },
  "Bangers": { ascent: 1401 / 1000, descent: 356 / 1000 },
  "Paytone One": { ascent: 1250 / 1000, descent: 380 / 1000 },
  "Slackey": { ascent: 1078 / 1024, descent: 351 / 1024 },
  "Permanent Marker": { ascent: 1136 / 1024, descent: 325 / 1024 },
  "Caveat Brush": { ascent: 960 / 1000, descent: 300 / 1000 },
  "Zilla Slab": { ascent: 944 / 1000, descent: 256 / 1000 },
  "Young Serif": { ascent: 1302 / 1000, descent: 366 / 1000 },
  "Instrument Serif": { ascent: 990 / 1000, descent: 310 / 1000 },
  "Bebas Neue": { ascent: 950 / 1000, descent: 350 / 1000 },
  "Coiny": { ascent: 750 / 1000, descent: 250 / 1000 },
};

/** ASS `Fontsize` whose glyphs are as large as our renderer's at a font size (em) of `emPx`. */
export function assFontSize(family: FontFamily, emPx: number): number {
  const win = WIN_METRICS_EM[family];
  return emPx * (win.ascent + win.descent);
}

// The family names the Google Fonts files give their light faces.
const LIGHT_FACE_SUFFIX: Readonly<Partial<Record<FaceFile["weight"], string>>> = { 200: "ExtraLight", 300: "Light" };

/**
 * The faces our renderer draws the thin weight with (thin&bold), by the family name libass knows them under:
 * libass matches a light face by that name, not by `\b200`. Families missing here have no light face; the
 * renderer then falls back to the regular one, as `\b0` does.
 */
export const THIN_FACE_NAMES: Readonly<Partial<Record<FontFamily, string>>> = Object.fromEntries(
  FONT_FAMILIES.flatMap((family) => {
    const suffix = captionFaceFiles(family).map((face) => LIGHT_FACE_SUFFIX[face.weight]).find((name) => name !== undefined);
    return suffix === undefined ? [] : [[family, `${family} ${suffix}`]];
  }),
);

export interface BundledFontFile {
  family: FontFamily;
  /** Where the face is linked in the fonts folder. */
  path: string;
}

/**
 * Links the faces the worker draws the caption families with (fonts.ts) into `dir`: the `ass` filter's
 * `fontsdir=` reads one flat folder, and the font packages keep a folder per face.
 */
export async function linkBundledFonts(dir: string, families: readonly FontFamily[] = FONT_FAMILIES): Promise<BundledFontFile[]> {
  await mkdir(dir, { recursive: true });
  const linked: BundledFontFile[] = [];
  for (const family of families) {
    for (const face of captionFaceFiles(family)) {
      const target = path.join(dir, path.basename(face.path));
      await symlink(face.path, target);
      linked.push({ family, path: target });
    }
  }
  return linked;
}
