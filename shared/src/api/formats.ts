import { FormatRegistry } from "@sinclair/typebox";
import { fullFormats } from "ajv-formats/dist/formats.js";

// TypeBox ships no string formats. We use the reference JSON Schema implementations (ajv-formats:
// RFC 3986 URIs, RFC 3339 date-times), so the server accepts exactly what the published OpenAPI
// schema describes.
const uri = fullFormats.uri as (value: string) => boolean;
const dateTime = (fullFormats["date-time"] as { validate: (value: string) => boolean }).validate;

export function registerFormats(): void {
  if (!FormatRegistry.Has("uri")) FormatRegistry.Set("uri", uri);
  if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", dateTime);
}
