import { createHash } from "node:crypto";
import { open, readFile, stat } from "node:fs/promises";

export interface ModelFileExpectation {
  minBytes: number;
  maxBytes: number;
  /** Lower-case hex; checked when given. */
  sha256?: string;
}

/**
 * Refuses files that would crash the process when handed to onnxruntime: a corrupt or truncated
 * .onnx aborts natively (uncatchable), whereas this throws a normal Error first.
 */
export async function verifyOnnxModelFile(path: string, expected: ModelFileExpectation): Promise<void> {
  const info = await stat(path).catch((error: unknown) => {
    throw new Error(`model file ${path} is not readable`, { cause: error });
  });
  if (!info.isFile()) throw new Error(`model file ${path} is not a regular file`);
  if (info.size < expected.minBytes || info.size > expected.maxBytes) {
    throw new Error(
      `model file ${path} has ${info.size} bytes, expected ${expected.minBytes}..${expected.maxBytes}` +
        " (a Git LFS pointer or a truncated download?)",
    );
  }
  const head = Buffer.alloc(1);
  const file = await open(path, "r");
  try {
    await file.read(head, 0, 1, 0);
  } finally {
    await file.close();
  }
  // An ONNX ModelProto starts with field 1 (ir_version, varint): tag byte 0x08.
  if (head[0] !== 0x08) throw new Error(`model file ${path} is not an ONNX model`);
  if (expected.sha256 !== undefined) {
    const actual = createHash("sha256").update(await readFile(path)).digest("hex");
    if (actual !== expected.sha256.toLowerCase()) {
      throw new Error(`model file ${path} has sha256 ${actual}, expected ${expected.sha256}`);
    }
  }
}
