import { Type, type Static } from "@sinclair/typebox";
import { FullStyleSchema, LiteralUnion } from "./style.ts";

export const PRESET_IDS = [
  "classic", "highlight", "smash", "box", "push", "elegant", "ogre", "outline",
  "paper-ink", "action", "prompter", "storytelling", "karaoke", "glow", "thin&bold", "background",
] as const;
export type PresetId = (typeof PRESET_IDS)[number];
export const PresetIdSchema = LiteralUnion(PRESET_IDS);

export const SUPPORTED_STYLE_FIELDS = [
  "position", "text_color", "highlight_color", "font_family", "font_weight", "font_style", "text_alignment",
  "text_case", "text_width", "line_count", "scale", "offset", "background", "outline", "shadow",
] as const;

export const ANIMATIONS = [
  "none", "active-word-color", "pop-in", "active-word-box", "scale-active", "float-in", "center-pop",
  "active-word-outline", "slide-lines", "active-word-opacity", "progressive-fill", "glow-fade-in", "weight-pulse",
] as const;
export type Animation = (typeof ANIMATIONS)[number];

/** Preset defaults: a full style before landscape adaptation, without the height-dependent top/bottom offsets. */
export const PresetDefaultsSchema = Type.Composite([
  Type.Omit(FullStyleSchema, ["offset"]),
  Type.Object({ offset: Type.Object({ left: Type.Number(), right: Type.Number() }, { additionalProperties: false }) }),
]);
export type PresetDefaults = Static<typeof PresetDefaultsSchema>;

export const PresetSchema = Type.Object(
  {
    id: PresetIdSchema,
    name: Type.String(),
    description: Type.String(),
    animation: LiteralUnion(ANIMATIONS),
    defaults: PresetDefaultsSchema,
    supported_style_fields: Type.Array(LiteralUnion(SUPPORTED_STYLE_FIELDS)),
    style_notes: Type.Record(Type.String(), Type.String()),
  },
  { additionalProperties: false, $id: "Preset" },
);
export type Preset = Static<typeof PresetSchema>;

export const PresetListSchema = Type.Object({ presets: Type.Array(PresetSchema) }, { additionalProperties: false, $id: "PresetList" });
