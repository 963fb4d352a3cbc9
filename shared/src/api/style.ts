import { KindGuard, Type, type ObjectOptions, type SchemaOptions, type Static, type TLiteral, type TObject, type TPartial, type TProperties, type TSchema, type TUnion } from "@sinclair/typebox";

/** Literal union helper: one schema, one source for the TypeScript type. */
export const LiteralUnion = <const T extends readonly (string | number)[]>(values: T, options: SchemaOptions = {}) =>
  Type.Union(values.map((v) => Type.Literal(v)), options) as unknown as TUnion<TLiteral<T[number]>[]>;

/**
 * JSON Schema's `oneOf` of objects that hold exactly one of `names`, for the OpenAPI document and its clients (each
 * branch names the property it requires: strict mode wants it defined where it is required). TypeBox ignores it:
 * the server enforces it in code, naming the fields.
 */
export const exactlyOneOf = (...names: string[]) => names.map((name) => ({ properties: { [name]: true }, required: [name] }));

/** A schema or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

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
const closed = { additionalProperties: false } as const;

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
    offset: Type.Object(
      { left: OffsetEdge, top: OffsetEdge, right: OffsetEdge, bottom: OffsetEdge },
      { ...closed, description: "Pixel offsets in output-video coordinates; horizontal = left - right, vertical = top - bottom" },
    ),
    background: Type.Object({ type: LiteralUnion(BACKGROUND_TYPES), color: HexColor, opacity: Type.Number({ minimum: 0, maximum: 1 }) }, closed),
    outline: Type.Object({ color: HexColor, thickness: Type.Number({ minimum: 0, maximum: 20 }) }, closed),
    shadow: Type.Object(
      {
        enabled: Type.Boolean(),
        color: HexColor,
        blur: Type.Number({ minimum: 0, maximum: 40 }),
        distance: Type.Number({ minimum: 0, maximum: 20 }),
        angle: Type.Number({ minimum: -180, maximum: 180, description: "0 points down, 90 points right" }),
      },
      closed,
    ),
  },
  closed,
);
export type FullStyle = Static<typeof FullStyleSchema>;

type TPartialGroups<T extends TProperties> = { [K in keyof T]: T[K] extends TObject ? TPartial<T[K]> : T[K] };

/** `full` with every field optional, the fields of its nested objects too. */
function partialFields<T extends TProperties>(full: TObject<T>, options: ObjectOptions): TPartial<TObject<TPartialGroups<T>>> {
  const fields: TProperties = {};
  for (const [name, schema] of Object.entries(full.properties)) fields[name] = KindGuard.IsObject(schema) ? Type.Partial(schema) : schema;
  return Type.Partial(Type.Object(fields as TPartialGroups<T>, closed), options);
}

/** The style a client sends: any subset of the fields, the preset fills in the rest. */
export const StyleSchema = partialFields(FullStyleSchema, { $id: "Style" });
export type Style = Static<typeof StyleSchema>;
