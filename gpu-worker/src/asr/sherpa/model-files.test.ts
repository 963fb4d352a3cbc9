import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { checkModelFile, findInstalledModels, resolveInside, sha256File, verifyInstalledModel, ModelVerificationError } from "./model-files.ts";
import { installTinyCtcModel } from "../../testing/tiny-onnx-model.ts";

let dir: string;
let size: number;
let sha256: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "model-files-"));
  await installTinyCtcModel(join(dir, "tiny"), [{ piece: "▁a", bin: 40 }]);
  size = (await stat(join(dir, "tiny", "model.onnx"))).size;
  sha256 = await sha256File(join(dir, "tiny", "model.onnx"));
});
after(() => rm(dir, { recursive: true, force: true }));

test("an intact file passes every check", async () => {
  assert.deepEqual(await checkModelFile(join(dir, "tiny"), { path: "model.onnx", size, sha256 }), []);
});

test("a truncated file is refused by its pinned size", async () => {
  const copy = join(dir, "truncated.onnx");
  await writeFile(copy, await readFile(join(dir, "tiny", "model.onnx")));
  await truncate(copy, size - 10);
  assert.deepEqual(await checkModelFile(dir, { path: "truncated.onnx", size, sha256 }), [
    `truncated.onnx: ${size - 10} bytes, expected ${size} (truncated or a different version)`,
  ]);
});

test("a Git LFS pointer is refused, whatever is pinned", async () => {
  const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256}\nsize ${size}\n`;
  await writeFile(join(dir, "pointer.onnx"), pointer);
  const [problem] = await checkModelFile(dir, { path: "pointer.onnx" });
  assert.match(problem ?? "", /Git LFS pointer/);
});

test("a wrong sha256 is refused", async () => {
  const problems = await checkModelFile(join(dir, "tiny"), { path: "model.onnx", size, sha256: "0".repeat(64) });
  assert.deepEqual(problems, [`model.onnx: sha256 ${sha256}, expected ${"0".repeat(64)}`]);
});

test("an .onnx that is not a protobuf model (an HTML error page, say) is refused", async () => {
  await writeFile(join(dir, "page.onnx"), "<html>rate limited</html>");
  assert.deepEqual(await checkModelFile(dir, { path: "page.onnx" }), ["page.onnx: not an ONNX model"]);
});

test("missing and empty files are refused", async () => {
  await writeFile(join(dir, "empty.onnx"), "");
  assert.deepEqual(await checkModelFile(dir, { path: "absent.onnx" }), ["absent.onnx: missing"]);
  assert.deepEqual(await checkModelFile(dir, { path: "empty.onnx" }), ["empty.onnx: empty"]);
});

test("paths may not leave the model folder", () => {
  assert.throws(() => resolveInside(dir, "../etc/passwd"), /leaves/);
  assert.equal(resolveInside(dir, "sub/x.onnx"), join(dir, "sub", "x.onnx"));
});

test("installed models are found by their record and verified against it", async () => {
  const found = await findInstalledModels(dir);
  assert.deepEqual(
    found.map((m) => m.record.name),
    ["tiny-tone-ctc"],
  );
  const [tiny] = found;
  assert.ok(tiny);
  assert.equal(tiny.record.checksumsPinned, false);
  await verifyInstalledModel(tiny);
  await writeFile(join(dir, "tiny", "tokens.txt"), "<blk> 0\n");
  await assert.rejects(verifyInstalledModel(tiny), (error: unknown) => error instanceof ModelVerificationError && /tokens\.txt/.test(error.message));
});
