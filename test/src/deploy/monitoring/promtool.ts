import assert from "node:assert/strict";
import { execa } from "execa";

/** Runs Prometheus' promtool (Debian's prometheus package; `npm run setup` installs it); never rejects. */
export async function promtool(args: string[], cwd?: string) {
  const found = await execa("sh", ["-c", "command -v promtool"], { reject: false });
  assert.equal(found.exitCode, 0, "promtool is missing: `npm run setup` installs it (Debian's prometheus package)");
  return execa("promtool", args, { reject: false, ...(cwd === undefined ? {} : { cwd }) });
}
