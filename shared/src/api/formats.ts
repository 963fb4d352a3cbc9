import { FormatRegistry } from "@sinclair/typebox";

// TypeBox ships no string formats; these are the ones our schemas use.
export function registerFormats(): void {
  if (!FormatRegistry.Has("uri")) FormatRegistry.Set("uri", (value) => URL.canParse(value));
  if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", (value) => !Number.isNaN(Date.parse(value)));
}
