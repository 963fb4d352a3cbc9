import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";

const scripts = (JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;

/** The `node …` command line an npm script runs (`[exec] sh scripts/node24 ARGS` → `node ARGS`). */
export function nodeCommandOf(script: string): string[] {
  const line = scripts[script]?.replace(/^exec /, "");
  if (!line?.startsWith("sh scripts/node24 ")) throw new Error(`npm script ${script} does not run scripts/node24`);
  return ["node", ...line.slice("sh scripts/node24 ".length).split(/\s+/)];
}
