import type { Static, TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { registerFormats } from "@caption/shared/api/formats";
import { invalidRequest } from "../services/service-error.ts";

registerFormats();

export interface Validator<T extends TSchema> {
  /** Returns the value typed, or throws 400 INVALID_REQUEST naming the first wrong field. */
  parse(value: unknown): Static<T>;
  check(value: unknown): boolean;
  /** For a part of a body at JSON pointer `at` (e.g. `/words/3`): null when it is valid, else the message naming its first wrong field. */
  problemAt(value: unknown, at: string): string | null;
}

export function createValidator<T extends TSchema>(schema: T): Validator<T> {
  const compiled: TypeCheck<T> = TypeCompiler.Compile(schema);
  // Errors arrive outermost first; the first one names the field that is wrong (a body of many words
  // may hold many errors: only the first is taken).
  const firstProblem = (value: unknown, at: string) => {
    const first = compiled.Errors(value).First();
    if (!first) throw new Error("validation failed without errors");
    return describe(first, value, at);
  };
  return {
    check: (value) => compiled.Check(value),
    parse(value) {
      if (compiled.Check(value)) return value;
      throw invalidRequest(firstProblem(value, ""));
    },
    problemAt: (value, at) => (compiled.Check(value) ? null : firstProblem(value, at)),
  };
}

/** `/style/offset/x` → `style.offset.x`, `/words/3/start` → `words[3].start`. */
const fieldName = (path: string) =>
  path
    .slice(1)
    .split("/")
    .reduce((name, segment) => (/^\d+$/u.test(segment) ? `${name}[${segment}]` : name === "" ? segment : `${name}.${segment}`), "") || "body";

/** The message for `error` in `value`, which lies at `at` in the body (the whole body when ""). */
function describe(error: ValueError, value: unknown, at: string): string {
  const field = fieldName(at + error.path);
  if (at === "" && (value === null || typeof value !== "object" || Array.isArray(value))) return "request body must be a JSON object";
  if (error.value === null) return `${field} must not be null; omit it to use the default`;
  const schema = error.schema as { anyOf?: { const?: unknown }[]; minimum?: number; maximum?: number; maxLength?: number; maxItems?: number; pattern?: string };
  switch (error.type) {
    case ValueErrorType.ObjectAdditionalProperties:
      if (field.startsWith("replacements.")) {
        return `replacements: ${JSON.stringify(error.path.slice(error.path.lastIndexOf("/") + 1))} is not a word or phrase of 1 to 50 characters without control characters`;
      }
      return `unknown field ${field}`;
    case ValueErrorType.ObjectRequiredProperty:
      return `${field} is required`;
    case ValueErrorType.Union:
      return schema.anyOf?.every((s) => s.const !== undefined)
        ? `${field} must be one of ${schema.anyOf.map((s) => JSON.stringify(s.const)).join(", ")}`
        : `${field} is invalid: ${error.message}`;
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
      if (schema.maximum === undefined) return `${field} must be at least ${schema.minimum}`;
      return `${field} must be between ${schema.minimum} and ${schema.maximum}`;
    case ValueErrorType.StringMaxLength:
      return `${field} must be at most ${schema.maxLength} characters`;
    case ValueErrorType.StringMinLength:
    case ValueErrorType.ArrayMinItems:
      return `${field} must not be empty`;
    case ValueErrorType.ArrayMaxItems:
      return `${field} must hold at most ${schema.maxItems} items`;
    case ValueErrorType.StringPattern:
      if (field.endsWith("color")) return `${field} must be a #RRGGBB hex color`;
      if (/^words\[\d+\]\.text$/u.test(field) || field.startsWith("replacements.")) return `${field} must not contain control characters (tabs, line breaks…)`;
      if (/^vocabulary\[\d+\]$/u.test(field)) return `${field} must hold visible text and no control characters (tabs, line breaks…)`;
      if (field === "video_url") return "video_url must be an absolute https:// URL";
      return `${field} must match ${schema.pattern}`;
    case ValueErrorType.StringFormat:
      return `${field} must be a valid ${(error.schema as { format?: string }).format}`;
    default:
      return `${field}: ${error.message}`;
  }
}
