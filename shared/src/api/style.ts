import { Type, type SchemaOptions, type Static, type TLiteral, type TUnion } from "@sinclair/typebox";

/** Literal union helper: one schema, one source for the TypeScript type. */
export const LiteralUnion = <const T extends readonly (string | number)[]>(values: T, options: SchemaOptions = {}) =>
  Type.Union(values.map((v) => Type.Literal(v)), options) as unknown as TUnion<TLiteral<T[number]>[]>;

export const HexColor = Type.String({ pattern: "^#[0-9a-fA-F]{6}$", description: "#RRGGBB; shorthand, alpha and named colors are rejected" });

export const FONT_FAMILIES = [
  "Inter", "Urbanist", "Rubik", "Bangers", "Paytone One", "Slackey", "Permanent Marker",
  "Caveat Brush", "Zilla Slab", "Young Serif", "Instrument Serif", "Bebas Neue", "Coiny",
] as const;
export type FontFamily = (typeof FONT_FAMILIES)[number];

export const POSITIONS = ["top", "center", "bottom"] as const;
export const HORIZONTAL_POSITIONS = ["left", "center", "right"] as const;
export const TEXT_ALIGNMENTS = ["left", "center", "right"] as const;
export const TEXT_CASES = ["none", "uppercase", "lowercase", "capitalize"] as const;
export const TEXT_WIDTHS = ["small", "medium", "large"] as const;
export const LINE_COUNTS = [0, 1, 2, 3, 100] as const;
export const BACKGROUND_TYPES = ["none", "line", "line-rounded", "box", "box-rounded"] as const;

const OffsetEdge = Type.Number({ minimum: -1920, maximum: 1920 });

export const OffsetSchema = Type.Object(
  {
    left: Type.Optional(OffsetEdge),
    top: Type.Optional(OffsetEdge),
    right: Type.Optional(OffsetEdge),
    bottom: Type.Optional(OffsetEdge),
  },
  { additionalProperties: false, description: "Pixel offsets in output-video coordinates; horizontal = left - right, vertical = top - bottom" },
);

export const BackgroundSchema = Type.Object(
  {
    type: Type.Optional(LiteralUnion(BACKGROUND_TYPES)),
    color: Type.Optional(HexColor),
    opacity: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);

export const OutlineSchema = Type.Object(
  {
    color: Type.Optional(HexColor),
    thickness: Type.Optional(Type.Number({ minimum: 0, maximum: 20 })),
  },
  { additionalProperties: false },
);

export const ShadowSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    color: Type.Optional(HexColor),
    blur: Type.Optional(Type.Number({ minimum: 0, maximum: 40 })),
    distance: Type.Optional(Type.Number({ minimum: 0, maximum: 20 })),
    angle: Type.Optional(Type.Number({ minimum: -180, maximum: 180, description: "0 points down, 90 points right" })),
  },
  { additionalProperties: false },
);

export const StyleSchema = Type.Object(
  {
    position: Type.Optional(LiteralUnion(POSITIONS)),
    horizontal_position: Type.Optional(LiteralUnion(HORIZONTAL_POSITIONS)),
    text_alignment: Type.Optional(LiteralUnion(TEXT_ALIGNMENTS)),
    text_color: Type.Optional(HexColor),
    highlight_color: Type.Optional(HexColor),
    font_family: Type.Optional(LiteralUnion(FONT_FAMILIES)),
    font_size: Type.Optional(Type.Number({ minimum: 12, maximum: 240 })),
    font_weight: Type.Optional(LiteralUnion([400, 700] as const)),
    font_style: Type.Optional(LiteralUnion(["normal", "italic"] as const)),
    text_case: Type.Optional(LiteralUnion(TEXT_CASES)),
    text_width: Type.Optional(LiteralUnion(TEXT_WIDTHS)),
    line_count: Type.Optional(LiteralUnion(LINE_COUNTS)),
    scale: Type.Optional(Type.Number({ minimum: 0.2, maximum: 1 })),
    offset: Type.Optional(OffsetSchema),
    background: Type.Optional(BackgroundSchema),
    outline: Type.Optional(OutlineSchema),
    shadow: Type.Optional(ShadowSchema),
  },
  { additionalProperties: false, $id: "Style" },
);
export type Style = Static<typeof StyleSchema>;

/** Every style field with a value: what a preset's defaults and a resolved style carry. */
export const FullStyleSchema = Type.Object(
  {
    position: LiteralUnion(POSITIONS),
    horizontal_position: LiteralUnion(HORIZONTAL_POSITIONS),
    text_alignment: LiteralUnion(TEXT_ALIGNMENTS),
    text_color: HexColor,
    highlight_color: HexColor,
    font_family: LiteralUnion(FONT_FAMILIES),
    font_size: Type.Number({ minimum: 12, maximum: 240 }),
    font_weight: LiteralUnion([400, 700] as const),
    font_style: LiteralUnion(["normal", "italic"] as const),
    text_case: LiteralUnion(TEXT_CASES),
    text_width: LiteralUnion(TEXT_WIDTHS),
    line_count: LiteralUnion(LINE_COUNTS),
    scale: Type.Number({ minimum: 0.2, maximum: 1 }),
    offset: Type.Object({ left: OffsetEdge, top: OffsetEdge, right: OffsetEdge, bottom: OffsetEdge }, { additionalProperties: false }),
    background: Type.Object({ type: LiteralUnion(BACKGROUND_TYPES), color: HexColor, opacity: Type.Number({ minimum: 0, maximum: 1 }) }, { additionalProperties: false }),
    outline: Type.Object({ color: HexColor, thickness: Type.Number({ minimum: 0, maximum: 20 }) }, { additionalProperties: false }),
    shadow: Type.Object(
      { enabled: Type.Boolean(), color: HexColor, blur: Type.Number({ minimum: 0, maximum: 40 }), distance: Type.Number({ minimum: 0, maximum: 20 }), angle: Type.Number({ minimum: -180, maximum: 180 }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type FullStyle = Static<typeof FullStyleSchema>;
