import assert from "node:assert/strict";
import { test } from "node:test";
import { GlobalFonts, createCanvas } from "@napi-rs/canvas";
import { FONT_FAMILIES, type FontFamily } from "@caption/shared/api/style";
import { AVERAGE_ADVANCE_EM } from "@caption/shared/presets/font-size";
import { FALLBACK_FAMILY_NAMES, bundledFamilyName, fontStack, hasRealFace, registerBundledFonts, type FaceStyle, type FaceWeight } from "./fonts.ts";

registerBundledFonts();

// One glyph or word drawn white on transparent; the alpha channel is the picture.
function draw(font: string, text: string, width = 180): Uint8Array {
  const canvas = createCanvas(width, 120);
  const ctx = canvas.getContext("2d");
  ctx.font = font;
  ctx.fillStyle = "#FFFFFF";
  ctx.textBaseline = "middle";
  ctx.fillText(text, 30, 60);
  const rgba = ctx.getImageData(0, 0, width, 120).data;
  return Uint8Array.from({ length: rgba.length / 4 }, (_, i) => rgba[i * 4 + 3] ?? 0);
}

const ink = (alpha: Uint8Array) => alpha.reduce((count, a) => count + (a > 0 ? 1 : 0), 0);
const samePicture = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((value, i) => value === b[i]);
const stack = (family: FontFamily, weight: FaceWeight = 400, style: FaceStyle = "normal") => fontStack(family, weight, style, 64);
const only = (registeredName: string, weight: FaceWeight = 400) => `normal ${weight} 64px "${registeredName}"`;

// A noncharacter no font maps: it draws the renderer's .notdef box of the first family.
const NOTDEF = "\u{10FFFF}";
const coverage = new Map<string, boolean>();
function covers(registeredName: string, character: string): boolean {
  const key = `${registeredName}\u0000${character}`;
  let covered = coverage.get(key);
  if (covered === undefined) {
    covered = !samePicture(draw(only(registeredName), character), draw(only(registeredName), NOTDEF));
    coverage.set(key, covered);
  }
  return covered;
}
const MULTILINGUAL = "Hello Łódź Привет 你好 こんにちは 안녕 Γειά مرحبا שלום नमस्ते বাংলা தமிழ் สวัสดี ქართ Հայ";

test("registration is idempotent and registers every family and fallback under a bundled name", () => {
  const names = () => GlobalFonts.families.map((entry) => entry.family).filter((name) => name.startsWith(bundledFamilyName("")));
  const before = names();
  registerBundledFonts();
  assert.deepEqual(names(), before);
  for (const family of FONT_FAMILIES) assert.ok(GlobalFonts.has(bundledFamilyName(family)), family);
  for (const name of FALLBACK_FAMILY_NAMES) assert.ok(GlobalFonts.has(name), name);
  assert.equal(before.length, FONT_FAMILIES.length + FALLBACK_FAMILY_NAMES.length);
});

test("hasRealFace agrees with the faces registered", () => {
  for (const family of FONT_FAMILIES) {
    const styles = GlobalFonts.families.find((entry) => entry.family === bundledFamilyName(family))?.styles ?? [];
    for (const weight of [400, 700] as const) {
      for (const italic of [false, true]) {
        const listed = styles.some((s) => s.weight === weight && s.style === (italic ? "italic" : "normal"));
        assert.equal(hasRealFace(family, weight, italic), listed, `${family} ${weight} ${italic ? "italic" : "normal"}`);
      }
    }
  }
});

test("real bold faces: Inter, Urbanist, Rubik and Zilla Slab; italics also in Instrument Serif", () => {
  assert.deepEqual(FONT_FAMILIES.filter((family) => hasRealFace(family, 700, false)), ["Inter", "Urbanist", "Rubik", "Zilla Slab"]);
  assert.deepEqual(FONT_FAMILIES.filter((family) => hasRealFace(family, 400, true)), ["Inter", "Urbanist", "Rubik", "Zilla Slab", "Instrument Serif"]);
  assert.deepEqual(FONT_FAMILIES.filter((family) => hasRealFace(family, 200, false)), ["Inter", "Urbanist"]);
});

test("fontStack names the caption family first, then every fallback, and ctx.font accepts it", () => {
  const font = fontStack("Paytone One", 700, "italic", 97.5);
  assert.equal(font, `italic 700 97.5px ${["Caption Bundled Paytone One", ...FALLBACK_FAMILY_NAMES].map((name) => `"${name}"`).join(", ")}`);
  const ctx = createCanvas(10, 10).getContext("2d");
  ctx.font = font;
  assert.equal(ctx.font, font);
});

for (const family of FONT_FAMILIES) {
  test(`${family}: every character of a multilingual line has a real glyph, never the .notdef box`, () => {
    const notdef = draw(stack(family), NOTDEF);
    for (const character of new Set(Array.from(MULTILINGUAL.replaceAll(" ", "")))) {
      const picture = draw(stack(family), character);
      assert.ok(ink(picture) > 0, `${family}: ${character} draws nothing`);
      assert.ok(!samePicture(picture, notdef), `${family}: ${character} is drawn as .notdef`);
    }
  });

  test(`${family}: characters it lacks come from the first bundled fallback that has them`, () => {
    const fallbacksUsed = new Set<string>();
    for (const character of new Set(Array.from(MULTILINGUAL.replaceAll(" ", "")))) {
      const picture = draw(stack(family), character);
      const source = [bundledFamilyName(family), ...FALLBACK_FAMILY_NAMES].find((name) => covers(name, character));
      assert.ok(source, `${character}: no bundled font has it`);
      assert.ok(samePicture(picture, draw(only(source), character)), `${family}: ${character} is not drawn with ${source}`);
      if (source !== bundledFamilyName(family)) fallbacksUsed.add(source);
    }
    assert.ok(fallbacksUsed.has(bundledFamilyName("Noto Sans SC")) && fallbacksUsed.has(bundledFamilyName("Noto Sans KR")));
  });

  test(`${family}: bold differs from regular and italic from upright, real face or synthesized`, () => {
    const regular = draw(stack(family, 400), "Hello", 400);
    assert.ok(!samePicture(draw(stack(family, 700), "Hello", 400), regular));
    assert.ok(!samePicture(draw(stack(family, 400, "italic"), "Hello", 400), regular));
  });

  test(`${family}: the average advance in shared/style/font-size matches the bundled font`, () => {
    const ctx = createCanvas(10, 10).getContext("2d");
    ctx.font = only(bundledFamilyName(family));
    const sample = "So this is the thing about making videos: you have to keep people watching until the very end, and captions help a lot with that.";
    const measured = ctx.measureText(sample).width / sample.length / 100 / 0.64;
    assert.ok(Math.abs(measured - AVERAGE_ADVANCE_EM[family]) / AVERAGE_ADVANCE_EM[family] < 0.01, `${family}: measured ${measured.toFixed(4)}`);
  });
}

test("Bangers lacks Cyrillic: it falls back to Noto Sans, not to a system font", () => {
  assert.ok(samePicture(draw(stack("Bangers"), "П"), draw(only(bundledFamilyName("Noto Sans")), "П")));
});

test("the thin weight thin&bold animates to is lighter than regular where a light face exists", () => {
  for (const family of ["Inter", "Urbanist", "Rubik", "Zilla Slab"] as const) {
    assert.ok(ink(draw(stack(family, 200), "Hello", 400)) < ink(draw(stack(family, 400), "Hello", 400)), family);
  }
});
