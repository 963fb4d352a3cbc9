import type { Preset, PresetDefaults, PresetId } from "../api/preset.ts";
import { SUPPORTED_STYLE_FIELDS } from "../api/preset.ts";
import { fontSizeFor } from "./font-size.ts";

// How a preset is written down (what it changes from the shared base) and made whole; the 16 are in catalog.ts.

type SupportedField = (typeof SUPPORTED_STYLE_FIELDS)[number];

// The five presets whose animation paints the active word with highlight_color.
export const COLOR_HIGHLIGHT_NOTE = "Sets the active word's text color.";
export const NO_HIGHLIGHT_NOTE = "No visual effect in this preset.";

const BASE: Omit<PresetDefaults, "font_size"> = {
  position: "bottom",
  horizontal_position: "center",
  text_alignment: "center",
  text_color: "#FFFFFF",
  highlight_color: "#FFD400",
  font_family: "Inter",
  font_weight: 700,
  font_style: "normal",
  text_case: "none",
  text_width: "medium",
  line_count: 2,
  scale: 1,
  offset: { left: 0, right: 0 },
  background: { type: "none", color: "#000000", opacity: 0.6 },
  outline: { color: "#000000", thickness: 0 },
  shadow: { enabled: false, color: "#000000", blur: 8, distance: 4, angle: 0 },
};

type DefaultsChanges = Partial<Omit<PresetDefaults, "font_size" | "offset" | "background" | "outline" | "shadow">> & {
  background?: Partial<PresetDefaults["background"]>;
  outline?: Partial<PresetDefaults["outline"]>;
  shadow?: Partial<PresetDefaults["shadow"]>;
};

interface PresetDefinition {
  id: PresetId;
  name: string;
  description: string;
  animation: Preset["animation"];
  defaults: DefaultsChanges;
  /** Fields of SUPPORTED_STYLE_FIELDS that do not change this preset's picture. */
  unsupported?: readonly SupportedField[];
  style_notes: Record<string, string>;
}

/** Full defaults from the shared base; font_size derived exactly as resolution derives it. */
export function definePreset(definition: PresetDefinition): Preset {
  const { defaults: changes } = definition;
  const withoutSize = {
    ...BASE,
    ...changes,
    offset: { ...BASE.offset },
    background: { ...BASE.background, ...changes.background },
    outline: { ...BASE.outline, ...changes.outline },
    shadow: { ...BASE.shadow, ...changes.shadow },
  };
  const unsupported = new Set(definition.unsupported ?? []);
  return deepFreeze({
    id: definition.id,
    name: definition.name,
    description: definition.description,
    animation: definition.animation,
    defaults: { ...withoutSize, font_size: fontSizeFor(withoutSize.font_family, withoutSize.text_width) },
    supported_style_fields: SUPPORTED_STYLE_FIELDS.filter((field) => !unsupported.has(field)),
    style_notes: definition.style_notes,
  });
}

// The catalog is shared by every request: nothing may change it in place.
function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) if (typeof child === "object" && child !== null) deepFreeze(child);
  return Object.freeze(value);
}
