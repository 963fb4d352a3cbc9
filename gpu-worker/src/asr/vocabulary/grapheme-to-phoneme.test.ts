import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pronounce } from "./grapheme-to-phoneme.ts";

test("a term's word that starts with '-' reaches t2p and espeak-ng as a word, never as an option", async () => {
  // Beside the programs, a file that `espeak-ng -fnotes` would read and say instead of the word.
  const dir = await mkdtemp(join(tmpdir(), "g2p-"));
  await writeFile(join(dir, "notes"), "zebra\n");
  await writeFile(join(dir, "notes.txt"), "zebra\n");
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const zebra = (await pronounce(["zebra"])).get("zebra")!;
    const dashed = (await pronounce(["-fnotes"])).get("-fnotes")!;
    assert.deepEqual(dashed, (await pronounce(["fnotes"])).get("fnotes"), "said as the word without its dash, by both programs");
    assert.equal(dashed.length, 2, JSON.stringify(dashed));
    const issue = (await pronounce(["-fnotes.txt"])).get("-fnotes.txt")!;
    assert.ok(issue.length >= 1, "t2p says it (espeak-ng reads it as three words, so only t2p's counts)");
    for (const phones of [...dashed, ...issue]) assert.ok(!zebra.some((z) => z.join(" ") === phones.join(" ")), `${phones.join(" ")} is the file's word`);
  } finally {
    process.chdir(cwd);
    await rm(dir, { recursive: true, force: true });
  }
});
