// Form fields built from the API's own OpenAPI document: every field of the style (and of a submission's options)
// with the limits and choices the API validates by, so the studio never states a rule the API does not hold.

export interface JsonSchema {
  type?: string;
  anyOf?: JsonSchema[];
  const?: string | number;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
}

export interface OpenApiDocument {
  components: { schemas: Record<string, JsonSchema> };
}

export type FieldValue = string | number | boolean;

export interface SchemaField {
  /** Where the value goes: `font_size`, or `background.color`. */
  path: readonly [string] | readonly [string, string];
  label: string;
  kind: "choice" | "number" | "switch" | "text";
  choices: readonly (string | number)[];
  schema: JsonSchema;
}

const words = (name: string) => name.replace(/_/gu, " ");
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function fieldOf(path: SchemaField["path"], schema: JsonSchema): SchemaField {
  const choices = schema.anyOf?.every((option) => option.const !== undefined) ? schema.anyOf.map((option) => option.const!) : [];
  const kind = choices.length > 0 ? "choice" : schema.type === "boolean" ? "switch" : schema.type === "number" || schema.type === "integer" ? "number" : "text";
  return { path, label: capitalised(path.map(words).join(" ")), kind, choices, schema };
}

/** The leaves of an object schema, one level of groups deep (the style's offset, background, outline, shadow). */
export function fieldsOf(schema: JsonSchema): SchemaField[] {
  const fields: SchemaField[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (property.type === "object" && property.properties) {
      for (const [inner, leaf] of Object.entries(property.properties)) fields.push(fieldOf([name, inner], leaf));
    } else fields.push(fieldOf([name], property));
  }
  return fields;
}

/** The submission's schema, where the style and the options are. */
export const submissionSchema = (document: OpenApiDocument): JsonSchema => document.components.schemas.SubmissionRequest ?? {};

/** The field's rule, in words: what a person must type. */
export function ruleOf(field: SchemaField): string {
  const { schema } = field;
  if (field.kind === "choice") return `one of ${field.choices.join(", ")}`;
  if (field.kind === "number") {
    const whole = schema.type === "integer" ? "a whole number" : "a number";
    if (schema.minimum !== undefined && schema.maximum !== undefined) return `${whole} from ${schema.minimum} to ${schema.maximum}`;
    if (schema.minimum !== undefined) return `${whole} of at least ${schema.minimum}`;
    return whole;
  }
  if (schema.pattern === "^#[0-9a-fA-F]{6}$") return "a colour as #RRGGBB, such as #FFD400";
  if (schema.maxLength !== undefined) return `at most ${schema.maxLength} characters`;
  return schema.description ?? "text";
}

/** The value typed for the field, or the rule it breaks. */
export function parseField(field: SchemaField, raw: string | boolean): { value: FieldValue } | { problem: string } {
  const broken = { problem: `${field.label} must be ${ruleOf(field)}` };
  if (field.kind === "switch") return { value: raw === true };
  const text = String(raw).trim();
  if (field.kind === "choice") {
    const choice = field.choices.find((option) => String(option) === text);
    return choice === undefined ? broken : { value: choice };
  }
  if (field.kind === "number") {
    const number = Number(text);
    const { minimum = -Infinity, maximum = Infinity } = field.schema;
    if (text === "" || !Number.isFinite(number) || number < minimum || number > maximum) return broken;
    if (field.schema.type === "integer" && !Number.isInteger(number)) return broken;
    return { value: number };
  }
  if (field.schema.pattern !== undefined && !new RegExp(field.schema.pattern, "u").test(text)) return broken;
  if (field.schema.maxLength !== undefined && text.length > field.schema.maxLength) return broken;
  return { value: text };
}

/** `record[path]`: a value of a style-like object. */
export function valueAt(record: Record<string, unknown> | undefined, path: SchemaField["path"]): unknown {
  const first = record?.[path[0]];
  if (path.length === 1) return first;
  return first !== null && typeof first === "object" ? (first as Record<string, unknown>)[path[1]] : undefined;
}

/** A copy of `record` with `value` at `path` (undefined removes it, and an emptied group with it). */
export function withValueAt<T extends Record<string, unknown>>(record: T, path: SchemaField["path"], value: FieldValue | undefined): T {
  const copy: Record<string, unknown> = { ...record };
  if (path.length === 1) {
    if (value === undefined) delete copy[path[0]];
    else copy[path[0]] = value;
    return copy as T;
  }
  const group: Record<string, unknown> = { ...(copy[path[0]] as Record<string, unknown> | undefined) };
  if (value === undefined) delete group[path[1]];
  else group[path[1]] = value;
  if (Object.keys(group).length === 0) delete copy[path[0]];
  else copy[path[0]] = group;
  return copy as T;
}
