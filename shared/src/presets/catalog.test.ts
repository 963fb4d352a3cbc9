import assert from "node:assert/strict";
import { test } from "node:test";
import { Value } from "@sinclair/typebox/value";
import { ANIMATIONS, PRESET_IDS, PresetSchema, SUPPORTED_STYLE_FIELDS, type Preset, type PresetId } from "../api/preset.ts";
import { StyleSchema } from "../api/style.ts";
import { fontSizeFor } from "./font-size.ts";
import { PRESETS, getPreset } from "./catalog.ts";

const COLOR_HIGHLIGHT_PRESETS: readonly PresetId[] = ["highlight", "push", "action", "box", "karaoke"];

function hsl(hex: string): { hue: number; saturation: number; lightness: number } {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const lightness = (max + min) / 2;
  const delta = max - min;
  if (delta === 0) return { hue: 0, saturation: 0, lightness };
  const saturation = delta / (1 - Math.abs(2 * lightness - 1));
  const sector = max === r ? ((g - b) / delta + 6) % 6 : max === g ? (b - r) / delta + 2 : (r - g) / delta + 4;
  return { hue: sector * 60, saturation, lightness };
}

const isWhite = (hex: string) => hex.toUpperCase() === "#FFFFFF";
const isBlack = (hex: string) => hex.toUpperCase() === "#000000";
const isDark = (hex: string) => hsl(hex).lightness < 0.2;
const hueIn = (from: number, to: number) => (hex: string) => {
  const { hue, saturation, lightness } = hsl(hex);
  return saturation > 0.4 && lightness > 0.2 && lightness < 0.85 && hue >= from && hue <= to;
};
const isGreen = hueIn(80, 160);
const isPurple = hueIn(250, 290);
const isOrange = hueIn(15, 40);
const isGold = hueIn(38, 55);
const isRed = (hex: string) => hueIn(0, 12)(hex) || hueIn(345, 360)(hex);
const isPink = hueIn(290, 340);

test("the catalog holds exactly the 16 preset ids, in the interface's order", () => {
  assert.deepEqual(PRESETS.map((preset) => preset.id), [...PRESET_IDS]);
});

test("classic comes first: it is the default preset", () => {
  assert.equal(PRESETS[0]?.id, "classic");
});

for (const preset of PRESETS) {
  test(`${preset.id}: validates against PresetSchema`, () => {
    assert.ok(Value.Check(PresetSchema, preset), JSON.stringify([...Value.Errors(PresetSchema, preset)].slice(0, 3)));
  });

  test(`${preset.id}: defaults are a valid request style whose font_size is derived from family and width`, () => {
    assert.ok(Value.Check(StyleSchema, preset.defaults), JSON.stringify([...Value.Errors(StyleSchema, preset.defaults)].slice(0, 3)));
    assert.deepEqual(Object.keys(preset.defaults.offset).sort(), ["left", "right"]);
    assert.equal(preset.defaults.font_size, fontSizeFor(preset.defaults.font_family, preset.defaults.text_width));
  });

  test(`${preset.id}: highlight_color is supported only where it colors something, and always has a note`, () => {
    assert.equal(preset.supported_style_fields.includes("highlight_color"), COLOR_HIGHLIGHT_PRESETS.includes(preset.id));
    assert.ok((preset.style_notes.highlight_color ?? "").length > 0);
  });

  test(`${preset.id}: supported fields are unique and every note names a style field path`, () => {
    assert.equal(new Set(preset.supported_style_fields).size, preset.supported_style_fields.length);
    for (const path of Object.keys(preset.style_notes)) {
      const [group, field, ...rest] = path.split(".");
      const groupSchema = StyleSchema.properties[group as keyof typeof StyleSchema.properties];
      assert.ok(groupSchema, `${path}: no style field ${group}`);
      assert.equal(rest.length, 0, path);
      if (field !== undefined) assert.ok("properties" in groupSchema && field in groupSchema.properties, `${path}: no nested field ${field}`);
    }
  });
}

test("animations are stable ids from ANIMATIONS", () => {
  for (const preset of PRESETS) assert.ok((ANIMATIONS as readonly string[]).includes(preset.animation), preset.id);
});

// The interface's appearance and behaviour tables, one row per preset.
const APPEARANCE: Record<PresetId, (p: Preset) => void> = {
  classic: ({ defaults: d, animation }) => {
    assert.ok(isWhite(d.text_color) && d.font_family === "Inter");
    assert.ok(d.outline.thickness > 0 && isDark(d.outline.color));
    assert.equal(animation, "none");
  },
  highlight: ({ defaults: d, animation }) => {
    assert.ok(d.text_case === "uppercase" && d.font_family === "Rubik");
    assert.equal(animation, "active-word-color");
    assert.notEqual(d.highlight_color, d.text_color);
  },
  smash: ({ defaults: d, animation, style_notes }) => {
    assert.ok(d.font_family === "Paytone One" && d.outline.thickness > 0);
    assert.equal(d.line_count, 0);
    assert.equal(animation, "pop-in");
    assert.match(style_notes.line_count ?? "", /0/);
  },
  box: ({ defaults: d, animation, style_notes }) => {
    assert.ok(d.font_family === "Inter" && isPurple(d.highlight_color));
    assert.equal(animation, "active-word-box");
    assert.equal(d.background.type, "none");
    assert.match(style_notes.highlight_color ?? "", /box/);
    assert.match(style_notes.background ?? "", /whole caption|lines/);
  },
  push: ({ defaults: d, animation }) => {
    assert.ok(d.text_case === "uppercase" && d.font_family === "Rubik" && isGreen(d.highlight_color));
    assert.equal(animation, "scale-active");
  },
  elegant: ({ defaults: d, animation }) => {
    assert.ok(d.text_case === "uppercase" && d.font_family === "Inter");
    assert.ok(d.shadow.enabled && d.shadow.blur > 0);
    assert.equal(animation, "float-in");
  },
  ogre: ({ defaults: d, animation }) => {
    assert.ok(isGreen(d.text_color) && d.font_family === "Caveat Brush" && d.position === "center");
    assert.equal(animation, "center-pop");
  },
  outline: ({ defaults: d }) => {
    assert.ok(d.font_family === "Rubik" && isOrange(d.outline.color) && d.outline.thickness >= 10);
    const { hue, lightness } = hsl(d.text_color);
    assert.ok(lightness > 0.85 && hue >= 20 && hue <= 60, "warm light text");
  },
  "paper-ink": ({ defaults: d }) => {
    assert.ok(isBlack(d.text_color) && d.font_family === "Rubik" && d.position === "top");
    assert.deepEqual(d.background, { type: "line-rounded", color: "#FFFFFF", opacity: 1 });
  },
  action: ({ defaults: d, animation }) => {
    assert.ok(d.font_family === "Bebas Neue" && d.font_style === "italic");
    assert.ok(d.outline.thickness > 0 && d.shadow.enabled);
    assert.equal(animation, "active-word-color");
  },
  prompter: ({ defaults: d, animation, style_notes }) => {
    assert.ok(d.font_family === "Zilla Slab" && d.position === "center" && d.text_alignment === "center");
    assert.ok(isWhite(d.outline.color) && d.outline.thickness > 0);
    assert.equal(animation, "active-word-opacity");
    assert.match(style_notes.highlight_color ?? "", /opacity/);
  },
  storytelling: ({ defaults: d }) => {
    assert.ok(isGold(d.text_color) && d.font_family === "Instrument Serif");
    assert.ok(isRed(d.outline.color) && d.outline.thickness > 0);
    assert.ok(d.shadow.enabled && d.shadow.distance > 0);
  },
  karaoke: ({ defaults: d, animation, style_notes }) => {
    assert.ok(d.font_family === "Coiny" && isPurple(d.highlight_color));
    assert.ok(isWhite(d.text_color) && isWhite(d.outline.color) && d.outline.thickness > 0);
    assert.equal(animation, "progressive-fill");
    assert.match(style_notes.highlight_color ?? "", /fill/);
    assert.match(style_notes.text_color ?? "", /white/);
  },
  glow: ({ defaults: d, animation }) => {
    assert.ok(d.font_family === "Rubik" && d.shadow.enabled && isPink(d.shadow.color) && d.shadow.blur > 0);
    assert.equal(animation, "glow-fade-in");
  },
  "thin&bold": ({ defaults: d, animation, supported_style_fields, style_notes }) => {
    assert.ok(d.text_case === "uppercase" && d.font_family === "Inter");
    assert.equal(animation, "weight-pulse");
    assert.ok(!supported_style_fields.includes("font_weight"));
    assert.match(style_notes.font_weight ?? "", /200.*700/);
  },
  background: ({ defaults: d }) => {
    assert.ok(d.font_family === "Urbanist");
    assert.ok(d.background.type === "box-rounded" && isBlack(d.background.color) && d.background.opacity > 0.5);
  },
};

for (const [id, check] of Object.entries(APPEARANCE)) {
  test(`${id}: looks as the interface's preset table says`, () => check(getPreset(id as PresetId)));
}

test("only thin&bold drops font_weight; every preset supports the other general fields", () => {
  const general = SUPPORTED_STYLE_FIELDS.filter((field) => field !== "highlight_color" && field !== "font_weight");
  for (const preset of PRESETS) {
    for (const field of general) assert.ok(preset.supported_style_fields.includes(field), `${preset.id} ${field}`);
    assert.equal(preset.supported_style_fields.includes("font_weight"), preset.id !== "thin&bold");
  }
});

test("getPreset finds every id and rejects an unknown one", () => {
  for (const id of PRESET_IDS) assert.equal(getPreset(id).id, id);
  assert.throws(() => getPreset("sparkle" as PresetId), RangeError);
});

test("the catalog cannot be changed in place", () => {
  const classic = getPreset("classic");
  assert.throws(() => {
    (classic.defaults.outline as { thickness: number }).thickness = 1;
  }, TypeError);
  assert.ok(Object.isFrozen(PRESETS[3]?.style_notes));
});
