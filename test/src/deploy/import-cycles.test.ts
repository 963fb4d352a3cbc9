// The import-cycle check of `npm run lint` (dependency-cruiser with .dependency-cruiser.mjs) bites, on type-only
// imports too: files that only name each other's types still form a loop it refuses.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";

const FOLDERS: Record<string, Record<string, string>> = {
  // Two files that import each other's types.
  types: {
    "a.ts": 'import type { B } from "./b.ts";\nexport interface A { b?: B }\n',
    "b.ts": 'import type { A } from "./a.ts";\nexport interface B { a?: A }\n',
  },
  // A loop through a third file, one link of it type-only.
  loop: {
    "a.ts": 'import { b } from "./b.ts";\nexport const a = () => b;\n',
    "b.ts": 'import type { C } from "./c.ts";\nexport const b = (c?: C) => c;\n',
    "c.ts": 'import { a } from "./a.ts";\nexport type C = ReturnType<typeof a>;\n',
  },
  // The same files with imports that point one way.
  "one-way": {
    "a.ts": 'import { b } from "./b.ts";\nexport const a = () => b;\n',
    "b.ts": 'import type { C } from "./c.ts";\nexport const b = (c?: C) => c;\n',
    "c.ts": "export type C = number;\n",
  },
};

test("the cycle check refuses loops of imports, type-only ones included, and passes imports that point one way", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "import-cycles-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  for (const [folder, files] of Object.entries(FOLDERS)) {
    await mkdir(path.join(dir, folder));
    for (const [file, text] of Object.entries(files)) await writeFile(path.join(dir, folder, file), text);
  }
  const cli = path.join(REPO_ROOT, "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs");
  const { code, report } = await new Promise<{ code: number; report: string }>((resolve) => {
    execFile(process.execPath, [cli, "--config", ".dependency-cruiser.mjs", "--output-type", "err", dir], { cwd: REPO_ROOT }, (error, stdout) => {
      resolve({ code: error === null ? 0 : Number(error.code), report: stdout });
    });
  });
  // Its exit code counts the violations: the two loops, and nothing in one-way/.
  assert.equal(code, 2, report);
  const cycles = report.split("error no-circular: ").slice(1);
  assert.ok(cycles.some((cycle) => /types\/a\.ts →\s+\S*types\/b\.ts →\s+\S*types\/a\.ts/u.test(cycle)), report);
  assert.ok(cycles.some((cycle) => /loop\/a\.ts →\s+\S*loop\/b\.ts →\s+\S*loop\/c\.ts →\s+\S*loop\/a\.ts/u.test(cycle)), report);
  assert.ok(!report.includes("one-way/"), report);
});
