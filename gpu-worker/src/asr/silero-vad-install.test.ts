// The Silero VAD model from its pinned npm package, fetched through the machine's npm (the npm
// registry is reachable wherever `npm run setup` works), and refused when the package is not the pinned one.
import assert from "node:assert/strict";
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { execa } from "execa";
import { installSileroVad } from "./silero-vad-install.ts";
import { SILERO_VAD, verifySileroVad } from "./silero-vad-model.ts";

let work: string;
const lines: string[] = [];
const options = () => ({ signal: new AbortController().signal, report: (line: string) => lines.push(line) });

before(async () => {
  work = await mkdtemp(join(tmpdir(), "silero-vad-install-"));
});
after(() => rm(work, { recursive: true, force: true }));

test("installs the pinned file from the npm package, then finds it installed; a damaged copy is replaced", async () => {
  const target = join(work, "ok", "silero_vad.onnx");
  assert.equal(await installSileroVad({ ...options(), target }), "installed");
  await verifySileroVad(target);
  assert.deepEqual(await readdir(join(work, "ok")), ["silero_vad.onnx"], "no staging folder or tarball left behind");
  assert.equal(await installSileroVad({ ...options(), target }), "already-installed");

  await writeFile(target, (await readFile(target)).subarray(0, 1000));
  await assert.rejects(verifySileroVad(target), /missing or damaged .*npm run models:download/);
  assert.equal(await installSileroVad({ ...options(), target }), "installed");
  await verifySileroVad(target);
});

test("a package tarball other than the pinned one is refused and nothing is installed", async () => {
  // An `npm` that packs a look-alike: same file name and member path, other bytes.
  const fakeBin = join(work, "fake-bin");
  const fakeContent = join(work, "fake-content");
  await execa("mkdir", ["-p", fakeBin, join(fakeContent, "package", "dist")]);
  await writeFile(join(fakeContent, SILERO_VAD.member), Buffer.alloc(SILERO_VAD.size, 8));
  await writeFile(
    join(fakeBin, "npm"),
    `#!/bin/sh\nwhile [ "$1" != "--pack-destination" ]; do shift; done\ntar -czf "$2/vad.tgz" -C '${fakeContent}' package\necho '[{"filename":"vad.tgz"}]'\n`,
  );
  await chmod(join(fakeBin, "npm"), 0o755);
  const target = join(work, "refused", "silero_vad.onnx");
  const path = process.env.PATH;
  process.env.PATH = `${fakeBin}:${path}`;
  try {
    await assert.rejects(installSileroVad({ ...options(), target }), /has integrity sha512-.*, the pin is sha512-.*; refused/);
  } finally {
    process.env.PATH = path;
  }
  assert.deepEqual(await readdir(join(work, "refused")), []);
});
