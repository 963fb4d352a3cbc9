import fc from "fast-check";

// fast-check arbitraries from the JSON Schemas of the OpenAPI document the API serves: values a schema
// accepts (or nearly: approximations are fine, since every answer is checked the same way), and the same
// values broken in one place by a hostile one.

export type JsonSchema = { [keyword: string]: any } | boolean;

export interface SchemaContext {
  /** `components.schemas` of the document, for `$ref`. */
  components: Record<string, JsonSchema>;
  /** `https://127.0.0.1:<port>`: every URL generated points here, never elsewhere. */
  loopbackOrigin: string;
  /** Ids of things that exist, by the pattern that describes them: a valid request names one. */
  idsByPattern: Record<string, string>;
}

const MAX_DEPTH = 8;
// Characters from integers: fast-check's own "binary" and "grapheme" units build a table of all of Unicode
// per string arbitrary, seconds of CPU each.
/** Any UTF-16 code unit: lone surrogates and NUL included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
/** Any code point: controls and NUL included, surrogate halves as well. */
const codePoint = fc.integer({ min: 0, max: 0x10ffff }).map((point) => String.fromCodePoint(point));
/** Text a person writes: mostly ASCII, any other character but controls and surrogate halves. */
const textChar = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.oneof(fc.integer({ min: 0xa0, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0x10ffff })) },
).map((point) => String.fromCodePoint(point));

/** Strings a hostile client puts where text goes. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udfff", "\ud83d", "\u202e", "\ufeff", "%00", "../../../etc/passwd", "'; SELECT pg_sleep(10); --", "\\u0000", "", " "),
  fc.string({ unit: codeUnit, maxLength: 24 }),
  fc.string({ unit: codePoint, maxLength: 24 }),
  fc.integer({ min: 256, max: 70_000 }).map((length) => "x".repeat(length)),
);

/** JSON values that fit no field: hostile strings, numbers at and past every limit, other types, depth, breadth. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(0, -0, -1, 0.5, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e-320, 99_999_999_999),
  fc.constantFrom(null, true, false, [], {}, [null], { "": null }, { __proto__: { polluted: true } }, JSON.parse('{"__proto__":{"polluted":true}}'), { constructor: { prototype: {} } }),
  // Deeper and wider bodies come as text (openapi-requests.ts): parsing them here would cost as much as sending them.
  fc.integer({ min: 2, max: 200 }).map((depth) => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`)),
  fc.integer({ min: 2, max: 2_000 }).map((length) => Array.from({ length }, (_, i) => i)),
);

const resolve = (schema: JsonSchema, context: SchemaContext): JsonSchema =>
  typeof schema === "object" && typeof schema.$ref === "string" ? (context.components[schema.$ref.replace("#/components/schemas/", "")] ?? true) : schema;

/** Values the schema describes. */
export function validValue(given: JsonSchema, context: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(given, context);
  if (schema === true || depth > MAX_DEPTH) return fc.jsonValue({ maxDepth: 2 });
  if (schema === false) return fc.constant(null);
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.anyOf) && !schema.properties) return fc.oneof(...schema.anyOf.map((branch: JsonSchema) => validValue(branch, context, depth + 1)));
  if (Array.isArray(schema.oneOf) && schema.properties) {
    // Object-level oneOf (exactly one source): each branch names the properties it requires.
    const { oneOf, ...rest } = schema;
    const branches = (oneOf as { required?: string[] }[]).map((branch) => ({ ...rest, required: [...(rest.required ?? []), ...(branch.required ?? [])] }));
    return fc.oneof(...branches.map((branch) => validValue(branch, context, depth + 1)));
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "object" || schema.properties || schema.patternProperties) return objectValue(schema, context, depth);
  if (type === "array") {
    const minLength = schema.minItems ?? 0;
    const maxLength = Math.min(schema.maxItems ?? minLength + 4, minLength + 4);
    const items = validValue(schema.items ?? true, context, depth + 1);
    if (schema.uniqueItems) return fc.uniqueArray(items, { minLength, maxLength, selector: (item) => JSON.stringify(item) });
    return fc.array(items, { minLength, maxLength });
  }
  if (type === "string") return stringValue(schema, context);
  if (type === "integer") return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000_000 });
  if (type === "number") return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
  if (type === "boolean") return fc.boolean();
  if (type === "null") return fc.constant(null);
  return fc.jsonValue({ maxDepth: 2 });
}

function objectValue(schema: { [keyword: string]: any }, context: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  const required = new Set<string>(schema.required ?? []);
  const record = fc.record(Object.fromEntries(properties.map(([name, property]) => [name, validValue(property, context, depth + 1)])), {
    requiredKeys: properties.map(([name]) => name).filter((name) => required.has(name)),
  });
  const patterned = Object.entries((schema.patternProperties ?? {}) as Record<string, JsonSchema>);
  if (patterned.length === 0) return record;
  const [pattern, valueSchema] = patterned[0]!;
  const keys = matching(pattern).filter((key) => !properties.some(([name]) => name === key));
  const extra = fc.dictionary(keys, validValue(valueSchema, context, depth + 1), { maxKeys: Math.min(schema.maxProperties ?? 4, 4) });
  return fc.tuple(record, extra).map(([fixed, more]) => ({ ...more, ...fixed }));
}

function stringValue(schema: { [keyword: string]: any }, context: SchemaContext): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? minLength + 40, minLength + 40);
  const fits = (value: string) => value.length >= minLength && value.length <= (schema.maxLength ?? Infinity);
  if (schema.format === "uri") return fc.stringMatching(/^[a-z0-9._~-]{0,20}(\/[a-z0-9._~-]{1,12}){0,3}$/).map((path) => `${context.loopbackOrigin}/${path}`);
  if (typeof schema.pattern === "string") {
    const existing = context.idsByPattern[schema.pattern];
    const generated = matching(schema.pattern).filter(fits);
    return existing ? fc.oneof({ weight: 3, arbitrary: fc.constant(existing) }, { weight: 1, arbitrary: generated }) : generated;
  }
  if (schema.format === "date-time") return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
  return fc.string({ unit: textChar, minLength, maxLength }).filter(fits);
}

/** Strings matching a pattern: generated from it where fast-check can, else filtered (lookaheads). */
function matching(pattern: string): fc.Arbitrary<string> {
  const regex = new RegExp(pattern);
  try {
    return fc.stringMatching(regex);
  } catch {
    return fc.string({ unit: textChar, minLength: 1, maxLength: 30 }).filter((value) => regex.test(value));
  }
}

/** A valid value broken in one place: one node replaced by a hostile value, a required key dropped, or an unknown key added. */
export function brokenValue(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  // Copies: generated values may be shared between runs, and breaking one changes it in place.
  const copy = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
  return fc.tuple(valid, fc.nat(), fc.constantFrom("replace", "drop", "add"), hostileJson).map(([value, index, how, hostile]) => breakAt(copy(value), index, how, copy(hostile)));
}

function breakAt(value: unknown, index: number, how: "drop" | "add" | "replace", hostile: unknown): unknown {
  const nodes: { get: () => unknown; set: (next: unknown) => void; parent?: Record<string, unknown>; key?: string }[] = [];
  const root = { value };
  const visit = (holder: Record<string, unknown>, key: string) => {
    nodes.push({ get: () => holder[key], set: (next) => (holder[key] = next), parent: holder === root ? undefined : holder, key });
    const child = holder[key];
    if (child && typeof child === "object") for (const inner of Object.keys(child)) visit(child as Record<string, unknown>, inner);
  };
  visit(root, "value");
  const node = nodes[index % nodes.length]!;
  const target = node.get();
  if (how === "drop" && node.parent && !Array.isArray(node.parent)) delete node.parent[node.key!];
  else if (how === "add" && target && typeof target === "object" && !Array.isArray(target)) (target as Record<string, unknown>)[`unknown_${index % 7}`] = hostile;
  else node.set(hostile);
  return root.value;
}
