import { createRequire } from "node:module";
import path from "node:path";
import { GlobalFonts } from "@napi-rs/canvas";
import type { FontFamily } from "@caption/shared/api/style";

/** 400 and 700 are the style's weights; 200 is the thin weight thin&bold animates to. */
export type FaceWeight = 200 | 400 | 700;
export type FaceStyle = "normal" | "italic";

interface FontSource {
  /** npm package (@expo-google-fonts/*: one complete TTF per weight and style). */
  package: string;
  /** File name stem, e.g. "PaytoneOne" for PaytoneOne_400Regular.ttf. */
  stem: string;
  /** Real weights registered; the lightest below 400 serves the thin weight (Skia picks the nearest lighter face). */
  weights: readonly (200 | 300 | 400 | 700)[];
  italic: boolean;
  /** Files at the package root rather than in one folder per face (the Slackey package). */
  flat?: boolean;
}

const CAPTION_FONTS: Readonly<Record<FontFamily, FontSource>> = {
  "Inter": { package: "@expo-google-fonts/inter", stem: "Inter", weights: [200, 400, 700], italic: true },
  "Urbanist": { package: "@expo-google-fonts/urbanist", stem: "Urbanist", weights: [200, 400, 700], italic: true },
  "Rubik": { package: "@expo-google-fonts/rubik", stem: "Rubik", weights: [300, 400, 700], italic: true },
  "Bangers": { package: "@expo-google-fonts/bangers", stem: "Bangers", weights: [400], italic: false },
  "Paytone One": { package: "@expo-google-fonts/paytone-one", stem: "PaytoneOne", weights: [400], italic: false },
  "Slackey": { package: "@expo-google-fonts/slackey", stem: "Slackey", weights: [400], italic: false, flat: true },
  "Permanent Marker": { package: "@expo-google-fonts/permanent-marker", stem: "PermanentMarker", weights: [400], italic: false },
  "Caveat Brush": { package: "@expo-google-fonts/caveat-brush", stem: "CaveatBrush", weights: [400], italic: false },
  "Zilla Slab": { package: "@expo-google-fonts/zilla-slab", stem: "ZillaSlab", weights: [300, 400, 700], italic: true },
  "Young Serif": { package: "@expo-google-fonts/young-serif", stem: "YoungSerif", weights: [400], italic: false },
  "Instrument Serif": { package: "@expo-google-fonts/instrument-serif", stem: "InstrumentSerif", weights: [400], italic: true },
  "Bebas Neue": { package: "@expo-google-fonts/bebas-neue", stem: "BebasNeue", weights: [400], italic: false },
  "Coiny": { package: "@expo-google-fonts/coiny", stem: "Coiny", weights: [400], italic: false },
};

/**
 * Fallbacks, in the order Skia tries them for characters the caption font lacks. Noto Sans SC covers all
 * unified Han ideographs plus kana; Noto Sans KR adds Hangul.
 */
const FALLBACK_FONTS: readonly (FontSource & { family: string })[] = [
  { family: "Noto Sans", package: "@expo-google-fonts/noto-sans", stem: "NotoSans", weights: [400, 700], italic: true },
  { family: "Noto Sans SC", package: "@expo-google-fonts/noto-sans-sc", stem: "NotoSansSC", weights: [400, 700], italic: false },
  { family: "Noto Sans KR", package: "@expo-google-fonts/noto-sans-kr", stem: "NotoSansKR", weights: [400, 700], italic: false },
  { family: "Noto Sans Arabic", package: "@expo-google-fonts/noto-sans-arabic", stem: "NotoSansArabic", weights: [400, 700], italic: false },
  { family: "Noto Sans Hebrew", package: "@expo-google-fonts/noto-sans-hebrew", stem: "NotoSansHebrew", weights: [400, 700], italic: false },
  { family: "Noto Sans Devanagari", package: "@expo-google-fonts/noto-sans-devanagari", stem: "NotoSansDevanagari", weights: [400, 700], italic: false },
  { family: "Noto Sans Bengali", package: "@expo-google-fonts/noto-sans-bengali", stem: "NotoSansBengali", weights: [400, 700], italic: false },
  { family: "Noto Sans Tamil", package: "@expo-google-fonts/noto-sans-tamil", stem: "NotoSansTamil", weights: [400, 700], italic: false },
  { family: "Noto Sans Thai", package: "@expo-google-fonts/noto-sans-thai", stem: "NotoSansThai", weights: [400, 700], italic: false },
  { family: "Noto Sans Georgian", package: "@expo-google-fonts/noto-sans-georgian", stem: "NotoSansGeorgian", weights: [400, 700], italic: false },
  { family: "Noto Sans Armenian", package: "@expo-google-fonts/noto-sans-armenian", stem: "NotoSansArmenian", weights: [400, 700], italic: false },
];

const WEIGHT_NAMES = { 200: "200ExtraLight", 300: "300Light", 400: "400Regular", 700: "700Bold" } as const;

// A prefix no system font uses, so a family installed on the host can never stand in for a bundled one.
const FAMILY_PREFIX = "Caption Bundled ";

/** The name a bundled family is registered under. */
export function bundledFamilyName(family: FontFamily | string): string {
  return FAMILY_PREFIX + family;
}

/** Registered names of the fallback families, in fallback order. */
export const FALLBACK_FAMILY_NAMES: readonly string[] = FALLBACK_FONTS.map((font) => bundledFamilyName(font.family));

/** Whether the family ships a real face for this weight and style (otherwise Skia synthesizes bold and italic). */
export function hasRealFace(family: FontFamily, weight: FaceWeight, italic: boolean): boolean {
  const source = CAPTION_FONTS[family];
  return source.weights.includes(weight) && (!italic || source.italic);
}

/** CSS font string for ctx.font: the caption family first, then the bundled fallbacks. */
export function fontStack(family: FontFamily, weight: FaceWeight, style: FaceStyle, sizePx: number): string {
  const families = [bundledFamilyName(family), ...FALLBACK_FAMILY_NAMES].map((name) => `"${name}"`).join(", ");
  return `${style} ${weight} ${sizePx}px ${families}`;
}

/** One TTF of a bundled family: a weight, upright or italic. */
export interface FaceFile {
  path: string;
  weight: FontSource["weights"][number];
  italic: boolean;
}

function faceFiles(source: FontSource): FaceFile[] {
  const directory = path.dirname(createRequire(import.meta.url).resolve(`${source.package}/package.json`));
  return source.weights.flatMap((weight) =>
    (source.italic ? [false, true] : [false]).map((italic) => {
      const face = `${WEIGHT_NAMES[weight]}${italic ? "_Italic" : ""}`;
      return { path: path.join(directory, source.flat ? "" : face, `${source.stem}_${face}.ttf`), weight, italic };
    }),
  );
}

/** The font files a caption family is drawn with (the faces registerBundledFonts registers for it). */
export function captionFaceFiles(family: FontFamily): FaceFile[] {
  return faceFiles(CAPTION_FONTS[family]);
}

let registered = false;

/** Registers every bundled face with @napi-rs/canvas, once per process; throws if a font file is missing or unreadable. */
export function registerBundledFonts(): void {
  if (registered) return;
  const sources: [string, FontSource][] = [
    ...Object.entries(CAPTION_FONTS),
    ...FALLBACK_FONTS.map((font): [string, FontSource] => [font.family, font]),
  ];
  for (const [family, source] of sources) {
    for (const { path: file } of faceFiles(source)) {
      if (GlobalFonts.registerFromPath(file, bundledFamilyName(family)) === null) {
        throw new Error(`cannot register font ${file} for ${family}`);
      }
    }
  }
  registered = true;
}
