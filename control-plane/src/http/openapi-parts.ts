import type { TSchema } from "@sinclair/typebox";
import type { Scope } from "@caption/shared/api/scopes";
import { ErrorBodySchema } from "@caption/shared/api/error";

// Building blocks of the OpenAPI document (openapi.ts) and of the routes' declared responses.

/** Plain JSON Schema of a TypeBox schema: the same object that validates, minus TypeBox's symbols. */
export const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema, (key, value) => (key === "$id" ? undefined : value)));

/** Marks a reference with the schema it names; openapi.ts gathers the marked schemas into `components.schemas`. */
export const COMPONENT = Symbol("component");

/** A reference to the component named by the schema's `$id`. */
export const ref = (schema: TSchema) => {
  if (typeof schema.$id !== "string") throw new Error("a schema the OpenAPI document names needs an $id");
  return { $ref: `#/components/schemas/${schema.$id}`, [COMPONENT]: schema };
};
export const json = (schema: TSchema) => ({ content: { "application/json": { schema: ref(schema) } } });
export const error = (description: string) => ({ description, ...json(ErrorBodySchema) });
export const retryAfter = { "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait before retrying" } };
export const rateLimited = { description: "RATE_LIMITED: the key's requests per minute are used up", headers: retryAfter, ...json(ErrorBodySchema) };
/**
 * What any request with an API key may be refused with, from the scope it needs: 401, naming
 * INSUFFICIENT_SCOPE where a key can lack that scope (every key can read: write implies read), and 429.
 * The document adds them to every keyed operation; a route declares a 429 of its own only when it has more to say.
 */
export const keyRefusals = (scope: Scope) => ({
  "401": error(
    scope === "subtitles:write"
      ? "Missing, unknown or revoked API key (UNAUTHORIZED), or a key without the subtitles:write scope (INSUFFICIENT_SCOPE)"
      : "Missing, unknown or revoked API key (UNAUTHORIZED); every key has subtitles:read (subtitles:write implies it), so INSUFFICIENT_SCOPE does not occur",
  ),
  "429": rateLimited,
});
/** The 404 of a path naming no resource of the caller's. */
export const notFoundError = { "404": error("NOT_FOUND") };
/** The refusals of every request that creates a job, beside its own 202 and 400. */
export const jobCreationErrors = {
  "402": error("No prepaid seconds available (INSUFFICIENT_CREDITS)"),
  "429": { description: "RATE_LIMITED or CONCURRENCY_LIMIT_EXCEEDED", headers: retryAfter, ...json(ErrorBodySchema) },
  "503": { description: "SERVICE_UNAVAILABLE", headers: retryAfter, ...json(ErrorBodySchema) },
};
/** Every JSON request body is read as sent: a compressed body is refused rather than inflated. */
export const encodedBody = { "415": error("The body is encoded: a Content-Encoding other than identity (UNSUPPORTED_MEDIA_TYPE)") };

/**
 * Bearer API keys carry scopes; an HTTP bearer scheme cannot list them, so each operation names the
 * scope it needs in its description (and in `x-required-scope`) and requires the scheme itself.
 */
export const bearer = (scope: Scope) => ({ security: [{ bearerAuth: [] }], "x-required-scope": scope });
export const needs = (scope: Scope) => `Needs an API key with the \`${scope}\` scope${scope === "subtitles:read" ? " (or `subtitles:write`, which implies it)" : ""}.`;
