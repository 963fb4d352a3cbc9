// Runs test files under node:test, two at a time, longest first (a longest-processing-time schedule): `node --test`
// starts them in alphabetical order, which puts the slowest kind (test/src/e2e, whole-service files) last, so
// the run could end on one long file alone while the other core idled. Each file's duration in the last run is
// kept in .tmp/test-durations.json; files with no record start first, then the rest by their recorded duration.
// The order changes how the files share the cores, never what a file runs. scripts/test.ts runs this with the
// globs to run.
import { existsSync, globSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { run } from "node:test";
import { spec } from "node:test/reporters";

const CONCURRENCY = 2;
const root = path.resolve(import.meta.dirname, "..");
const historyFile = path.join(root, ".tmp", "test-durations.json");

const patterns = process.argv.slice(2);
const files: string[] = [];
for (const pattern of patterns) {
  const matched = globSync(pattern, { cwd: root }).filter((file) => !file.split(path.sep).includes("node_modules"));
  if (matched.length === 0) {
    console.error(`no test file matches ${pattern}`);
    process.exit(1);
  }
  for (const file of matched.map((f) => path.resolve(root, f))) if (!files.includes(file)) files.push(file);
}

const history = await readFile(historyFile, "utf8").then((text) => JSON.parse(text) as Record<string, number>, () => ({}) as Record<string, number>);
const recorded = (file: string) => history[path.relative(root, file)] ?? Number.POSITIVE_INFINITY;
// Among files with no record (all of them on a first run), the whole-service ones, the slowest kind, go first.
const wholeService = (file: string) => (path.relative(root, file).startsWith(path.join("test", "src", "e2e")) ? 0 : 1);
files.sort((a, b) => recorded(b) - recorded(a) || wholeService(a) - wholeService(b) || a.localeCompare(b));

const durations: Record<string, number> = {};
let success = false;
const stream = run({ files, concurrency: CONCURRENCY, cwd: root });
stream.on("test:summary", (summary) => {
  if (summary.file === undefined) success = summary.success;
  else durations[path.relative(root, summary.file)] = Math.round(summary.duration_ms);
});
stream.compose(spec).pipe(process.stdout);
await new Promise((resolve) => stream.once("end", resolve));

// Files not run this time keep their record (a `test:only` run of one file forgets nothing); deleted ones go.
const kept = Object.entries({ ...history, ...durations }).filter(([file]) => existsSync(path.join(root, file)));
await mkdir(path.dirname(historyFile), { recursive: true });
await writeFile(`${historyFile}.tmp`, JSON.stringify(Object.fromEntries(kept), null, 1));
await rename(`${historyFile}.tmp`, historyFile);
process.exitCode = success ? 0 : 1;
