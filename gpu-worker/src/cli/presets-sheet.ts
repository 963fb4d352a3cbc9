// `npm run presets:sheet [-- --out FILE] [--url URL --key KEY]`: a contact sheet PNG of all 16 presets,
// portrait and landscape, each labelled with its id, made of previews the service draws (POST /v1/previews).
// With --url and --key (or API_URL and API_KEY) it asks a running service; without, it starts one as
// `npm start` does, in a fresh data folder, and stops it after. Default output docs/presets.png.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { PRESET_IDS } from "@caption/shared/api/preset";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { withEmbeddedService } from "../tools/embedded-service.ts";
import { previewClient } from "../tools/preview-client.ts";
import { renderPresetsSheet } from "../tools/presets-sheet.ts";

const USAGE = `usage: presets-sheet [--out FILE] [--url URL --key API_KEY]
  --out FILE   default: docs/presets.png in the repository
  --url, --key a running service and a key with the subtitles:write scope (or API_URL, API_KEY);
               without them an embedded service is started for the run`;
const DEFAULT_OUT = path.resolve(import.meta.dirname, "..", "..", "..", "docs", "presets.png");

async function main(argv: string[]): Promise<number> {
  const values = parseCommandLine(
    { args: argv, options: { out: { type: "string" }, url: { type: "string" }, key: { type: "string" }, help: { type: "boolean", short: "h", default: false } }, strict: true },
    USAGE,
  );
  if (typeof values === "number") return values;
  // npm runs scripts from the repository root; a relative --out means the caller's directory.
  const out = values.out === undefined ? DEFAULT_OUT : path.resolve(process.env.INIT_CWD ?? process.cwd(), values.out);
  const url = values.url ?? (process.env.API_URL || undefined);
  const key = values.key ?? (process.env.API_KEY || undefined);
  if ((url === undefined) !== (key === undefined)) {
    process.stderr.write(`--url and --key go together\n${USAGE}\n`);
    return 2;
  }
  const sheet = (service: { url: string; apiKey: string }) =>
    renderPresetsSheet(previewClient(service.url, service.apiKey), (preset, index) => process.stderr.write(`[${index + 1}/${PRESET_IDS.length}] ${preset}\n`));
  if (url === undefined) process.stderr.write("starting an embedded service (npm start) for the previews…\n");
  const png = url !== undefined && key !== undefined ? await sheet({ url, apiKey: key }) : await withEmbeddedService(sheet);
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, png);
  process.stdout.write(`${out}\n`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
