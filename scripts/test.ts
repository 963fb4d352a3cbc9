// The whole test suite: type-check, lint (import cycles included), then every *.test.ts against a real embedded
// PostgreSQL, two files at a time, longest first (scripts/run-test-files.ts). `--quick` leaves out the
// whole-service files (test/src/e2e: each starts the service's processes).
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { startEmbeddedPostgres } from "@caption/control-plane";
import { parseCommand } from "@caption/shared/runtime/command-line";
import { ensureTestCa } from "@caption/shared/testing/test-ca";
import { createTemplateDatabase, TEST_DATABASE_TEMPLATE_VARIABLE } from "@caption/shared/testing/test-database";

const USAGE = "usage: npm test [-- --no-static] [-- --quick] [-- <test file or glob> ...]";
const parsed = parseCommand(
  {
    args: process.argv.slice(2),
    options: { "no-static": { type: "boolean", default: false }, quick: { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } },
    allowPositionals: true,
    strict: true,
  },
  USAGE,
);
if (typeof parsed === "number") process.exit(parsed);
const skipStatic = parsed.values["no-static"];
const patterns = parsed.positionals;

const root = path.resolve(import.meta.dirname, "..");
const logger = pino({ level: process.env.LOG_LEVEL ?? "warn" });

function run(command: string, commandArgs: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { cwd: root, env, stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const tmp = path.join(root, ".tmp");

if (!skipStatic) {
  console.log("▶ type-check, lint and import cycles");
  // The service's sources, the studio's (a browser's, with the DOM and without Node), and the lint: three
  // single-threaded processes, side by side. tsc keeps what it checked in .tmp/tsc, so it re-checks what changed.
  const checks = await Promise.all([
    ...["tsconfig.json", "studio/tsconfig.json"].map((project) => {
      const buildInfo = path.join(tmp, "tsc", `${project.replaceAll("/", "-")}.tsbuildinfo`);
      return run(process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit", "--incremental", "--tsBuildInfoFile", buildInfo, "-p", project]);
    }),
    run(process.execPath, ["scripts/lint.ts"]),
  ]);
  if (checks.some((code) => code !== 0)) process.exit(1);
}

const ca = await ensureTestCa(path.join(tmp, "test-ca"));
// One cluster per run, so concurrent runs (a developer's and an agent's) never share one.
const pgDir = path.join(tmp, `test-postgres-${process.pid}`);
await rm(pgDir, { recursive: true, force: true });
console.log("▶ starting embedded PostgreSQL for the tests");
const postgres = await startEmbeddedPostgres(pgDir, logger);

// Migrated once (below); each test file's database is a copy of it.
const template = "test_template";
const env = {
  ...process.env,
  [TEST_DATABASE_TEMPLATE_VARIABLE]: template,
  // V8's compiled code and Node's type-stripped sources, cached across the run's processes and runs: each test
  // file is a process of its own that would otherwise compile the same few hundred modules again.
  NODE_COMPILE_CACHE: path.join(tmp, "node-compile-cache"),
  TEST_DATABASE_ADMIN_URL: postgres.adminUrl,
  NODE_EXTRA_CA_CERTS: ca.caCertPath,
  TEST_CA_DIR: path.dirname(ca.caCertPath),
};
const packages = ["shared/src/**/*.test.ts", "control-plane/src/**/*.test.ts", "gpu-worker/src/**/*.test.ts", "bench/src/**/*.test.ts", "studio/src/**/*.test.ts"];
const wholeService = "test/src/e2e/**/*.test.ts";
const files = patterns.length > 0 ? patterns : [...packages, "test/src/deploy/**/*.test.ts", ...(parsed.values.quick ? [] : [wholeService])];
console.log("▶ tests");
let code = 1;
try {
  await createTemplateDatabase(postgres.adminUrl, template);
  code = await run(process.execPath, ["scripts/run-test-files.ts", ...files], env);
} finally {
  await postgres.destroy();
  await rm(pgDir, { recursive: true, force: true });
}
process.exit(code);
