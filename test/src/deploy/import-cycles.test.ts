// The import-cycle check of `npm run lint` (dependency-cruiser with .dependency-cruiser.mjs) bites, on type-only
// imports too: files that only name each other's types still form a loop it refuses.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "import-cycles-"));
});
after(() => rm(dir, { recursive: true, force: true }));

/** Writes the files into a fresh folder and runs the check on it: its exit code and report. */
async function check(name: string, files: Record<string, string>): Promise<{ code: number; report: string }> {
  const folder = path.join(dir, name);
  await mkdir(folder);
  for (const [file, text] of Object.entries(files)) await writeFile(path.join(folder, file), text);
  const cli = path.join(REPO_ROOT, "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs");
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, "--config", ".dependency-cruiser.mjs", "--output-type", "err", folder], { cwd: REPO_ROOT }, (error, stdout) => {
      resolve({ code: error === null ? 0 : Number(error.code), report: stdout });
    });
  });
}

test("two files that import each other's types are a cycle", async () => {
  const { code, report } = await check("types", {
    "a.ts": 'import type { B } from "./b.ts";\nexport interface A { b?: B }\n',
    "b.ts": 'import type { A } from "./a.ts";\nexport interface B { a?: A }\n',
  });
  assert.equal(code, 1, report);
  assert.match(report, /no-circular: .*types\/a\.ts →\s+.*types\/b\.ts →\s+.*types\/a\.ts/u);
});

test("a loop through a third file is a cycle; imports that point one way are not", async () => {
  const loop = await check("loop", {
    "a.ts": 'import { b } from "./b.ts";\nexport const a = () => b;\n',
    "b.ts": 'import type { C } from "./c.ts";\nexport const b = (c?: C) => c;\n',
    "c.ts": 'import { a } from "./a.ts";\nexport type C = ReturnType<typeof a>;\n',
  });
  assert.equal(loop.code, 1, loop.report);
  const oneWay = await check("one-way", {
    "a.ts": 'import { b } from "./b.ts";\nexport const a = () => b;\n',
    "b.ts": 'import type { C } from "./c.ts";\nexport const b = (c?: C) => c;\n',
    "c.ts": "export type C = number;\n",
  });
  assert.equal(oneWay.code, 0, oneWay.report);
});
