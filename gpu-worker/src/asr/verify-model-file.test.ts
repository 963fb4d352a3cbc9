import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { verifyOnnxModelFile } from "./verify-model-file.ts";
import { DEFAULT_SILERO_VAD_MODEL } from "./silero-vad-model.ts";

const SHA256 = "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3";
const SIZE = { minBytes: 500_000, maxBytes: 20_000_000 };
let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "model-file-"));
});
after(() => rm(dir, { recursive: true, force: true }));

test("the real Silero VAD model passes, with and without its hash", async () => {
  await verifyOnnxModelFile(DEFAULT_SILERO_VAD_MODEL, SIZE);
  await verifyOnnxModelFile(DEFAULT_SILERO_VAD_MODEL, { ...SIZE, sha256: SHA256 });
});

test("missing files, LFS pointers, truncated and foreign files are refused", async () => {
  await assert.rejects(verifyOnnxModelFile(join(dir, "absent.onnx"), SIZE), /not readable/);

  const pointer = join(dir, "pointer.onnx");
  await writeFile(pointer, `version https://git-lfs.github.com/spec/v1\noid sha256:${SHA256}\nsize 2327524\n`);
  await assert.rejects(verifyOnnxModelFile(pointer, SIZE), /Git LFS pointer or a truncated download/);

  const truncated = join(dir, "truncated.onnx");
  await writeFile(truncated, (await readFile(DEFAULT_SILERO_VAD_MODEL)).subarray(0, 1_500_000));
  // Size and header alone cannot tell a truncated model; the hash can.
  await verifyOnnxModelFile(truncated, SIZE);
  await assert.rejects(verifyOnnxModelFile(truncated, { ...SIZE, sha256: SHA256 }), /has sha256 [0-9a-f]{64}, expected/);

  const foreign = join(dir, "foreign.onnx");
  await writeFile(foreign, Buffer.alloc(1_000_000, 0x41));
  await assert.rejects(verifyOnnxModelFile(foreign, SIZE), /not an ONNX model/);

  await assert.rejects(verifyOnnxModelFile(dir, SIZE), /not a regular file/);
});
