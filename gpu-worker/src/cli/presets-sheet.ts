// `npm run presets:sheet [-- --out FILE]`: a contact sheet PNG of all 16 presets, portrait and landscape,
// each labelled with its id. Default docs/presets.png in the repository.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { PRESET_IDS } from "@caption/shared/api/preset";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { renderPresetsSheet } from "../tools/presets-sheet.ts";

const USAGE = "usage: presets-sheet [--out FILE]   (default: docs/presets.png in the repository)";
const DEFAULT_OUT = path.resolve(import.meta.dirname, "..", "..", "..", "docs", "presets.png");

async function main(argv: string[]): Promise<number> {
  const values = parseCommandLine({ args: argv, options: { out: { type: "string" }, help: { type: "boolean", short: "h", default: false } }, strict: true }, USAGE);
  if (typeof values === "number") return values;
  // npm runs scripts from the repository root; a relative --out means the caller's directory.
  const out = values.out === undefined ? DEFAULT_OUT : path.resolve(process.env.INIT_CWD ?? process.cwd(), values.out);
  const png = renderPresetsSheet((preset, index) => process.stderr.write(`[${index + 1}/${PRESET_IDS.length}] ${preset}\n`));
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, png);
  process.stdout.write(`${out}\n`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
