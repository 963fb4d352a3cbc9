import type { Preset, PresetId } from "../api/preset.ts";
import { PRESET_IDS } from "../api/preset.ts";
import { COLOR_HIGHLIGHT_NOTE, definePreset, NO_HIGHLIGHT_NOTE } from "./preset-definition.ts";

/** All 16 presets in the interface's order. */
export const PRESETS: readonly Preset[] = [
  definePreset({
    id: "classic",
    name: "Classic",
    description: "White Inter text with a dark outline. The default preset.",
    animation: "none",
    defaults: { outline: { color: "#000000", thickness: 6 } },
    unsupported: ["highlight_color"],
    style_notes: { highlight_color: NO_HIGHLIGHT_NOTE },
  }),
  definePreset({
    id: "highlight",
    name: "Highlight",
    description: "Uppercase bold Rubik with a dark outline; the word being spoken is highlighted in yellow.",
    animation: "active-word-color",
    defaults: { font_family: "Rubik", text_case: "uppercase", highlight_color: "#FFD400", outline: { thickness: 5 } },
    style_notes: { highlight_color: COLOR_HIGHLIGHT_NOTE },
  }),
  definePreset({
    id: "smash",
    name: "Smash",
    description: "Outlined Paytone One; words pop in one at a time.",
    animation: "pop-in",
    defaults: { font_family: "Paytone One", font_weight: 400, text_width: "small", line_count: 0, outline: { thickness: 8 } },
    unsupported: ["highlight_color"],
    style_notes: {
      highlight_color: NO_HIGHLIGHT_NOTE,
      line_count: "Default 0: one word at a time. 1, 2 or 3 group the popping words into lines.",
    },
  }),
  definePreset({
    id: "box",
    name: "Box",
    description: "Bold Inter with a purple box behind the word being spoken.",
    animation: "active-word-box",
    defaults: { highlight_color: "#7C3AED", shadow: { enabled: true, color: "#000000", blur: 10, distance: 3, angle: 0 } },
    style_notes: {
      highlight_color: "Sets the color of the animated box behind the active word.",
      background: "Controls a background behind the whole caption or its lines, separate from the active-word box.",
    },
  }),
  definePreset({
    id: "push",
    name: "Push",
    description: "Uppercase bold Rubik; the word being spoken turns green and grows.",
    animation: "scale-active",
    defaults: { font_family: "Rubik", text_case: "uppercase", highlight_color: "#22E55B", outline: { thickness: 5 } },
    style_notes: { highlight_color: COLOR_HIGHLIGHT_NOTE },
  }),
  definePreset({
    id: "elegant",
    name: "Elegant",
    description: "Uppercase Inter floating into place with a soft shadow.",
    animation: "float-in",
    defaults: { text_case: "uppercase", font_weight: 400, shadow: { enabled: true, color: "#000000", blur: 16, distance: 3, angle: 0 } },
    unsupported: ["highlight_color"],
    style_notes: { highlight_color: NO_HIGHLIGHT_NOTE },
  }),
  definePreset({
    id: "ogre",
    name: "Ogre",
    description: "Big green Caveat Brush popping into the center of the video.",
    animation: "center-pop",
    defaults: {
      position: "center",
      text_color: "#7ED321",
      font_family: "Caveat Brush",
      font_weight: 400,
      text_width: "small",
      line_count: 1,
      outline: { color: "#0B2A05", thickness: 6 },
    },
    unsupported: ["highlight_color"],
    style_notes: { highlight_color: NO_HIGHLIGHT_NOTE },
  }),
  definePreset({
    id: "outline",
    name: "Outline",
    description: "Warm cream Rubik with a thick orange outline.",
    animation: "active-word-outline",
    defaults: { text_color: "#FFF1D6", font_family: "Rubik", outline: { color: "#FF7A00", thickness: 12 } },
    unsupported: ["highlight_color"],
    style_notes: { highlight_color: NO_HIGHLIGHT_NOTE },
  }),
  definePreset({
    id: "paper-ink",
    name: "Paper & Ink",
    description: "Black Rubik on rounded white lines at the top of the video.",
    animation: "slide-lines",
    defaults: {
      position: "top",
      text_color: "#000000",
      font_family: "Rubik",
      background: { type: "line-rounded", color: "#FFFFFF", opacity: 1 },
    },
    unsupported: ["highlight_color"],
    style_notes: { highlight_color: NO_HIGHLIGHT_NOTE },
  }),
  definePreset({
    id: "action",
    name: "Action",
    description: "Italic Bebas Neue with an outline and a hard shadow; the word being spoken turns red.",
    animation: "active-word-color",
    defaults: {
      font_family: "Bebas Neue",
      font_weight: 400,
      font_style: "italic",
      highlight_color: "#FF2D2D",
      outline: { thickness: 4 },
      shadow: { enabled: true, color: "#000000", blur: 0, distance: 6, angle: 45 },
    },
    style_notes: { highlight_color: COLOR_HIGHLIGHT_NOTE },
  }),
  definePreset({
    id: "prompter",
    name: "Prompter",
    description: "Centered dark Zilla Slab with a white outline; spoken words are fully opaque, the rest dimmed.",
    animation: "active-word-opacity",
    defaults: { position: "center", text_color: "#111111", font_family: "Zilla Slab", line_count: 3, outline: { color: "#FFFFFF", thickness: 5 } },
    unsupported: ["highlight_color"],
    style_notes: { highlight_color: "No effect: the active word is highlighted by opacity, not color." },
  }),
  definePreset({
    id: "storytelling",
    name: "Storytelling",
    description: "Gold Instrument Serif with a red outline and an offset shadow.",
    animation: "none",
    defaults: {
      text_color: "#F5C542",
      font_family: "Instrument Serif",
      font_weight: 400,
      outline: { color: "#B3121B", thickness: 3 },
      shadow: { enabled: true, color: "#000000", blur: 0, distance: 7, angle: 45 },
    },
    unsupported: ["highlight_color"],
    style_notes: { highlight_color: NO_HIGHLIGHT_NOTE },
  }),
  definePreset({
    id: "karaoke",
    name: "Karaoke",
    description: "Rounded Coiny in white; a purple fill sweeps through each word as it is spoken.",
    animation: "progressive-fill",
    defaults: {
      font_family: "Coiny",
      font_weight: 400,
      highlight_color: "#8B3DFF",
      outline: { color: "#FFFFFF", thickness: 4 },
      shadow: { enabled: true, color: "#000000", blur: 12, distance: 2, angle: 0 },
    },
    style_notes: {
      highlight_color: "Sets the progressive fill that sweeps through each word as it is spoken.",
      text_color: "Color of the text not yet spoken; white by default.",
      outline: "White by default.",
    },
  }),
  definePreset({
    id: "glow",
    name: "Glow",
    description: "White Rubik with a pink glow, fading in.",
    animation: "glow-fade-in",
    defaults: { font_family: "Rubik", shadow: { enabled: true, color: "#FF4FD8", blur: 24, distance: 0, angle: 0 } },
    unsupported: ["highlight_color"],
    style_notes: {
      highlight_color: NO_HIGHLIGHT_NOTE,
      shadow: "The glow is the shadow: its color, blur and distance (0 keeps it centered) shape the glow.",
    },
  }),
  definePreset({
    id: "thin&bold",
    name: "Thin & Bold",
    description: "Uppercase Inter whose words switch between thin and bold weights.",
    animation: "weight-pulse",
    defaults: { text_case: "uppercase", shadow: { enabled: true, color: "#000000", blur: 12, distance: 2, angle: 0 } },
    unsupported: ["highlight_color", "font_weight"],
    style_notes: {
      highlight_color: NO_HIGHLIGHT_NOTE,
      font_weight: "No effect: the animation controls the weights, 200 and 700.",
    },
  }),
  definePreset({
    id: "background",
    name: "Background",
    description: "White Urbanist on a rounded black background.",
    animation: "none",
    defaults: { font_family: "Urbanist", background: { type: "box-rounded", color: "#000000", opacity: 1 } },
    unsupported: ["highlight_color"],
    style_notes: { highlight_color: NO_HIGHLIGHT_NOTE },
  }),
];

const BY_ID = new Map(PRESETS.map((preset) => [preset.id, preset]));

export function getPreset(id: PresetId): Preset {
  const preset = BY_ID.get(id);
  if (!preset) throw new RangeError(`unknown preset ${id}; known: ${PRESET_IDS.join(", ")}`);
  return preset;
}
