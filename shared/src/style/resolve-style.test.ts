import assert from "node:assert/strict";
import { test } from "node:test";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import fc from "fast-check";
import { PRESET_IDS, type PresetId } from "../api/preset.ts";
import { StyleSchema, type Style } from "../api/style.ts";
import { getPreset } from "../presets/catalog.ts";
import { fontSizeFor } from "../presets/font-size.ts";
import { resolveStyle, type VideoSize } from "./resolve-style.ts";
import { ResolvedStyleSchema, type ResolvedStyle } from "./resolved-style.ts";

const PORTRAIT = { width: 1080, height: 1920 };
const LANDSCAPE = { width: 1920, height: 1080 };
const SQUARE = { width: 1080, height: 1080 };

function resolve(preset: PresetId, video: VideoSize, style?: Style): ResolvedStyle {
  const resolved = resolveStyle(style === undefined ? { preset, video } : { preset, style, video });
  assert.ok(Value.Check(ResolvedStyleSchema, resolved), JSON.stringify([...Value.Errors(ResolvedStyleSchema, resolved)].slice(0, 3)));
  return resolved;
}

test("without a style, a portrait video gets the preset's defaults with the bottom inset and its own scale", () => {
  const { defaults } = getPreset("classic");
  assert.deepEqual(resolve("classic", PORTRAIT), {
    ...defaults,
    offset: { left: 0, right: 0, top: 0, bottom: 384 },
    preset: "classic",
    animation: "none",
    video: PORTRAIT,
    final_scale: 1,
  });
});

test("{} and empty nested objects change nothing", () => {
  for (const preset of PRESET_IDS) {
    for (const video of [PORTRAIT, LANDSCAPE, SQUARE]) {
      const plain = resolve(preset, video);
      assert.deepEqual(resolve(preset, video, {}), plain);
      assert.deepEqual(resolve(preset, video, { offset: {}, background: {}, outline: {}, shadow: {} }), plain);
    }
  }
});

// Shape adaptation and resolution scaling: [video, preset, text_width, scale, font_size, final_scale, top, bottom].
const SHAPES: [VideoSize, PresetId, string, number, number, number, number, number][] = [
  [{ width: 1080, height: 1920 }, "classic", "medium", 1, 97, 1, 0, 384],
  [{ width: 720, height: 1280 }, "classic", "medium", 1, 97, 720 / 1080, 0, 256],
  [{ width: 480, height: 854 }, "classic", "medium", 1, 97, 480 / 1080, 0, 171],
  [{ width: 360, height: 640 }, "classic", "medium", 1, 97, 360 / 1080, 0, 128],
  [{ width: 1920, height: 1080 }, "classic", "large", 0.55, 69, (0.55 * 1920) / 1080, 0, 151],
  [{ width: 1280, height: 720 }, "classic", "large", 0.55, 69, (0.55 * 1280) / 1080, 0, 101],
  [{ width: 854, height: 480 }, "classic", "large", 0.55, 69, (0.55 * 854) / 1080, 0, 67],
  [{ width: 640, height: 360 }, "classic", "large", 0.55, 69, (0.55 * 640) / 1080, 0, 50],
  [{ width: 1080, height: 1080 }, "classic", "medium", 1, 97, 1, 0, 216],
  [{ width: 360, height: 360 }, "classic", "medium", 1, 97, 360 / 1080, 0, 72],
  [{ width: 1440, height: 1920 }, "classic", "medium", 1, 97, 1440 / 1080, 0, 384],
  [{ width: 1920, height: 1920 }, "classic", "medium", 1, 97, 1920 / 1080, 0, 384],
  [{ width: 1081, height: 1080 }, "classic", "large", 0.55, 69, (0.55 * 1081) / 1080, 0, 151],
  [{ width: 1080, height: 1920 }, "smash", "small", 1, 129, 1, 0, 384],
  [{ width: 1920, height: 1080 }, "smash", "large", 0.55, 65, (0.55 * 1920) / 1080, 0, 151],
  [{ width: 1080, height: 1920 }, "paper-ink", "medium", 1, 99, 1, 384, 0],
  [{ width: 1920, height: 1080 }, "paper-ink", "large", 0.55, 71, (0.55 * 1920) / 1080, 151, 0],
  [{ width: 640, height: 360 }, "paper-ink", "large", 0.55, 71, (0.55 * 640) / 1080, 50, 0],
  [{ width: 1080, height: 1920 }, "ogre", "small", 1, 185, 1, 0, 0],
  [{ width: 1920, height: 1080 }, "ogre", "large", 0.55, 93, (0.55 * 1920) / 1080, 0, 0],
];

for (const [video, preset, textWidth, scale, fontSize, finalScale, top, bottom] of SHAPES) {
  test(`${preset} on ${video.width}x${video.height}: width ${textWidth}, scale ${scale}, size ${fontSize}, insets ${top}/${bottom}`, () => {
    const resolved = resolve(preset, video);
    assert.equal(resolved.text_width, textWidth);
    assert.equal(resolved.scale, scale);
    assert.equal(resolved.font_size, fontSize);
    assert.ok(Math.abs(resolved.final_scale - finalScale) < 1e-12, `${resolved.final_scale}`);
    assert.deepEqual(resolved.offset, { left: 0, right: 0, top, bottom });
    assert.deepEqual(resolved.video, video);
  });
}

// Supplied properties: [what, preset, video, style, expected fields of the result].
const OVERRIDES: [string, PresetId, VideoSize, Style, Partial<ResolvedStyle>][] = [
  ["scale wins over the landscape scale", "classic", LANDSCAPE, { scale: 0.8 }, { scale: 0.8, final_scale: (0.8 * 1920) / 1080 }],
  ["scale wins on portrait", "classic", { width: 720, height: 1280 }, { scale: 0.5 }, { scale: 0.5, final_scale: (0.5 * 720) / 1080 }],
  ["text_width wins over landscape's large", "classic", LANDSCAPE, { text_width: "small" }, { text_width: "small", font_size: 138 }],
  ["font_size wins; text_width is kept but not used for sizing", "classic", PORTRAIT, { font_size: 50, text_width: "small" }, { font_size: 50, text_width: "small" }],
  ["font_size wins on landscape", "classic", LANDSCAPE, { font_size: 12 }, { font_size: 12, text_width: "large" }],
  ["size derives from the resolved family", "classic", PORTRAIT, { font_family: "Bebas Neue" }, { font_family: "Bebas Neue", font_size: 137 }],
  ["size derives from the resolved family and width", "classic", LANDSCAPE, { font_family: "Coiny" }, { font_family: "Coiny", font_size: 64 }],
  ["size derives from family and supplied width", "action", PORTRAIT, { font_family: "Slackey", text_width: "small" }, { font_size: 107 }],
  ["outline.thickness 0 disables the outline, color kept", "classic", PORTRAIT, { outline: { thickness: 0 } }, { outline: { color: "#000000", thickness: 0 } }],
  ["outline.color alone keeps the preset's thickness", "classic", PORTRAIT, { outline: { color: "#FF0000" } }, { outline: { color: "#FF0000", thickness: 6 } }],
  ["outline.color alone on a preset without outline keeps it off", "glow", PORTRAIT, { outline: { color: "#FF0000" } }, { outline: { color: "#FF0000", thickness: 0 } }],
  ["shadow.enabled false disables, other shadow fields kept", "elegant", PORTRAIT, { shadow: { enabled: false } }, { shadow: { enabled: false, color: "#000000", blur: 16, distance: 3, angle: 0 } }],
  ["shadow.color alone does not enable a disabled shadow", "classic", PORTRAIT, { shadow: { color: "#FF00FF" } }, { shadow: { enabled: false, color: "#FF00FF", blur: 8, distance: 4, angle: 0 } }],
  ["shadow.enabled true enables it", "classic", PORTRAIT, { shadow: { enabled: true, color: "#FF00FF" } }, { shadow: { enabled: true, color: "#FF00FF", blur: 8, distance: 4, angle: 0 } }],
  ["explicit zero shadow fields override", "action", PORTRAIT, { shadow: { blur: 0, distance: 0, angle: 0 } }, { shadow: { enabled: true, color: "#000000", blur: 0, distance: 0, angle: 0 } }],
  ["background.color alone keeps type none", "classic", PORTRAIT, { background: { color: "#FF0000" } }, { background: { type: "none", color: "#FF0000", opacity: 0.6 } }],
  ["background.opacity alone keeps line-rounded", "paper-ink", PORTRAIT, { background: { opacity: 0.5 } }, { background: { type: "line-rounded", color: "#FFFFFF", opacity: 0.5 } }],
  ["background.opacity 0 is an override", "background", PORTRAIT, { background: { opacity: 0 } }, { background: { type: "box-rounded", color: "#000000", opacity: 0 } }],
  ["background.type enables a background", "classic", PORTRAIT, { background: { type: "box" } }, { background: { type: "box", color: "#000000", opacity: 0.6 } }],
  ["background.type none disables the preset's background", "paper-ink", PORTRAIT, { background: { type: "none" } }, { background: { type: "none", color: "#FFFFFF", opacity: 1 } }],
  ["position top moves the inset to the top", "classic", PORTRAIT, { position: "top" }, { position: "top", offset: { left: 0, right: 0, top: 384, bottom: 0 } }],
  ["position top on landscape uses 14 %", "classic", LANDSCAPE, { position: "top" }, { offset: { left: 0, right: 0, top: 151, bottom: 0 } }],
  ["position center has no inset", "paper-ink", PORTRAIT, { position: "center" }, { offset: { left: 0, right: 0, top: 0, bottom: 0 } }],
  ["position bottom on a centered preset adds the inset", "ogre", SQUARE, { position: "bottom" }, { offset: { left: 0, right: 0, top: 0, bottom: 216 } }],
  ["explicit offset.bottom replaces the whole edge", "classic", PORTRAIT, { offset: { bottom: 50 } }, { offset: { left: 0, right: 0, top: 0, bottom: 50 } }],
  ["explicit offset.bottom 0 removes the inset", "classic", PORTRAIT, { offset: { bottom: 0 } }, { offset: { left: 0, right: 0, top: 0, bottom: 0 } }],
  ["explicit offset.top 0 removes the inset", "paper-ink", LANDSCAPE, { offset: { top: 0 } }, { offset: { left: 0, right: 0, top: 0, bottom: 0 } }],
  ["explicit offset.top on the other edge keeps the inset", "classic", PORTRAIT, { offset: { top: 100 } }, { offset: { left: 0, right: 0, top: 100, bottom: 384 } }],
  ["negative offsets are kept", "classic", PORTRAIT, { offset: { top: -30, left: -1920 } }, { offset: { left: -1920, right: 0, top: -30, bottom: 384 } }],
  ["left and right override the preset's", "classic", PORTRAIT, { offset: { left: 40, right: 10 } }, { offset: { left: 40, right: 10, top: 0, bottom: 384 } }],
  ["offsets are output pixels, not scaled", "classic", { width: 360, height: 640 }, { offset: { left: 40 } }, { offset: { left: 40, right: 0, top: 0, bottom: 128 } }],
  ["line_count 0 is kept", "classic", PORTRAIT, { line_count: 0 }, { line_count: 0 }],
  ["line_count 100 is kept", "classic", PORTRAIT, { line_count: 100 }, { line_count: 100 }],
  ["smash groups words into lines when asked", "smash", PORTRAIT, { line_count: 2 }, { line_count: 2 }],
  ["text_case is kept as a value", "highlight", PORTRAIT, { text_case: "capitalize" }, { text_case: "capitalize" }],
  ["scalars are applied as given", "classic", PORTRAIT,
    { horizontal_position: "right", text_alignment: "left", text_color: "#123456", highlight_color: "#abcdef", font_weight: 400, font_style: "italic" },
    { horizontal_position: "right", text_alignment: "left", text_color: "#123456", highlight_color: "#abcdef", font_weight: 400, font_style: "italic" }],
  ["thin&bold records font_weight as given", "thin&bold", PORTRAIT, { font_weight: 400 }, { font_weight: 400 }],
];

for (const [what, preset, video, style, expected] of OVERRIDES) {
  test(`${preset}: ${what}`, () => {
    const resolved = resolve(preset, video, style);
    for (const [key, value] of Object.entries(expected)) {
      if (key === "final_scale") assert.ok(Math.abs(resolved.final_scale - (value as number)) < 1e-12);
      else assert.deepEqual(resolved[key as keyof ResolvedStyle], value, key);
    }
  });
}

test("every preset on every common size validates and records preset, animation and video", () => {
  const sizes = [360, 480, 720, 1080].flatMap((p) => {
    const long = Math.round((p * 16) / 9);
    return [{ width: p, height: long }, { width: long, height: p }, { width: p, height: p }];
  });
  for (const preset of PRESET_IDS) {
    for (const video of sizes) {
      const resolved = resolve(preset, video);
      assert.equal(resolved.preset, preset);
      assert.equal(resolved.animation, getPreset(preset).animation);
      assert.deepEqual(resolved.video, video);
    }
  }
});

test("the result is a fresh object, not the catalog's", () => {
  const resolved = resolve("paper-ink", PORTRAIT);
  resolved.background.opacity = 0.1;
  resolved.offset.left = 5;
  assert.equal(getPreset("paper-ink").defaults.background.opacity, 1);
  assert.equal(resolve("paper-ink", PORTRAIT).background.opacity, 1);
});

test("a video size that is not a positive integer is refused", () => {
  for (const video of [{ width: 0, height: 100 }, { width: 100, height: -1 }, { width: 100.5, height: 100 }, { width: Number.NaN, height: 100 }]) {
    assert.throws(() => resolveStyle({ preset: "classic", video }), RangeError);
  }
});

// Arbitrary values for a TypeBox schema, read from its constraints (literals, patterns, ranges, optional keys).
function arbitraryFor(schema: TSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as TSchema[]).map(arbitraryFor));
  switch (schema.type) {
    case "string":
      return fc.stringMatching(new RegExp(schema.pattern as string));
    case "number":
      return fc.double({ min: schema.minimum as number, max: schema.maximum as number, noNaN: true });
    case "integer":
      return fc.integer({ min: schema.minimum as number, max: schema.maximum as number });
    case "boolean":
      return fc.boolean();
    case "object": {
      const properties = schema.properties as Record<string, TSchema>;
      const model = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, arbitraryFor(value)]));
      return fc.record(model, { requiredKeys: (schema.required as string[] | undefined) ?? [] });
    }
    default:
      throw new Error(`no arbitrary for schema ${JSON.stringify(schema)}`);
  }
}

const styleArbitrary = arbitraryFor(StyleSchema) as fc.Arbitrary<Style>;
const presetArbitrary = fc.constantFrom(...PRESET_IDS);
const videoArbitrary = fc.record({ width: fc.integer({ min: 1, max: 1920 }), height: fc.integer({ min: 1, max: 1920 }) });

test("the style arbitrary only produces styles the API accepts", () => {
  fc.assert(fc.property(styleArbitrary, (style) => Value.Check(StyleSchema, style)));
});

test("property: any valid style resolves to a valid ResolvedStyle, and {} equals no style", () => {
  fc.assert(
    fc.property(presetArbitrary, styleArbitrary, videoArbitrary, (preset, style, video) => {
      const resolved = resolveStyle({ preset, style, video });
      assert.ok(Value.Check(ResolvedStyleSchema, resolved), JSON.stringify([...Value.Errors(ResolvedStyleSchema, resolved)].slice(0, 3)));
      assert.deepEqual(resolveStyle({ preset, style: {}, video }), resolveStyle({ preset, video }));
    }),
    { numRuns: 500 },
  );
});

test("property: supplied fields win, omitted fields inherit, size and scale follow the rules", () => {
  fc.assert(
    fc.property(presetArbitrary, styleArbitrary, videoArbitrary, (preset, style, video) => {
      const resolved = resolveStyle({ preset, style, video });
      const base = resolveStyle({ preset, video });
      for (const key of Object.keys(StyleSchema.properties) as (keyof Style)[]) {
        if (key === "font_size" || key === "offset") continue;
        const supplied = style[key];
        const expected = typeof supplied === "object" ? { ...base[key as "shadow"], ...supplied } : (supplied ?? base[key]);
        assert.deepEqual(resolved[key], expected, key);
      }
      assert.equal(resolved.font_size, style.font_size ?? fontSizeFor(resolved.font_family, resolved.text_width));
      assert.equal(resolved.final_scale, (resolved.scale * video.width) / 1080);
      assert.equal(resolved.offset.left, style.offset?.left ?? base.offset.left);
      assert.equal(resolved.offset.right, style.offset?.right ?? base.offset.right);
      if (style.offset?.top !== undefined) assert.equal(resolved.offset.top, style.offset.top);
      if (style.offset?.bottom !== undefined) assert.equal(resolved.offset.bottom, style.offset.bottom);
      if (style.position === undefined) {
        assert.equal(resolved.offset.top, style.offset?.top ?? base.offset.top);
        assert.equal(resolved.offset.bottom, style.offset?.bottom ?? base.offset.bottom);
      }
    }),
    { numRuns: 500 },
  );
});
