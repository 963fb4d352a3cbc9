// `sh scripts/node24 bench/src/cli/profile-summary.ts <file.cpuprofile> [top N]`: where a CPU profile of
// the API (npm run bench:api -- --profile) spends its time, by package and by function.
import { readFile } from "node:fs/promises";
import { parseCommand } from "@caption/shared/runtime/command-line";
import { summarise, type CpuProfile } from "../api/profile-summary.ts";

const USAGE = "usage: profile-summary.ts <file.cpuprofile> [top N]";

async function main(argv: string[]): Promise<number> {
  const parsed = parseCommand({ args: argv, options: { help: { type: "boolean", short: "h", default: false } }, allowPositionals: true, strict: true }, USAGE);
  if (typeof parsed === "number") return parsed;
  const [file, topArg] = parsed.positionals;
  if (!file) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const profile = JSON.parse(await readFile(file, "utf8")) as CpuProfile;
  for (const line of summarise(profile, topArg ? Number(topArg) : 25)) console.log(line);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
