// `npm run lint [-- <files>]`: ESLint (style, types, package boundaries and layers) over the files (default: all),
// then dependency-cruiser over all sources for import cycles, type-only imports included (.dependency-cruiser.mjs).
import { spawn } from "node:child_process";
import path from "node:path";
import { parseCommand } from "@caption/shared/runtime/command-line";

const USAGE = "usage: npm run lint [-- <file or folder> ...]";
const SOURCES = ["shared/src", "control-plane/src", "gpu-worker/src", "studio/src", "bench/src", "test/src", "scripts"];
const root = path.resolve(import.meta.dirname, "..");

const parsed = parseCommand({ options: { help: { type: "boolean", short: "h", default: false } }, allowPositionals: true, strict: true }, USAGE);
if (typeof parsed === "number") process.exit(parsed);
const files = parsed.positionals.length > 0 ? parsed.positionals : ["."];

function run(script: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, script), ...args], { cwd: root, stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const eslint = await run("node_modules/eslint/bin/eslint.js", files);
const cycles = await run("node_modules/dependency-cruiser/bin/dependency-cruiser.mjs", ["--config", ".dependency-cruiser.mjs", "--output-type", "err", ...SOURCES]);
process.exit(eslint !== 0 ? eslint : cycles);
