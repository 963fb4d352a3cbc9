/**
 * The embedded database cannot start for a reason the operator has to fix. The message is one line
 * that names the cause and the fix; entry points print it instead of a stack trace.
 */
export class EmbeddedPostgresError extends Error {
  override name = "EmbeddedPostgresError";
}

/** The last non-empty line a tool wrote, which for initdb and postgres is the one that says why. */
export function lastLine(output: string): string {
  return (
    output
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean)
      .at(-1) ?? "no output"
  );
}
