import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { Value } from "@sinclair/typebox/value";
import {
  INSTALL_RECORD,
  InstalledModelSchema,
  type InstalledModel,
  type ModelFile,
  type ModelSpec,
} from "./model-manifest.ts";

const LFS_POINTER_PREFIX = "version https://git-lfs.github.com/spec/";

export interface FileExpectation {
  path: string;
  size?: number;
  sha256?: string;
}

export async function sha256File(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, signal ? { signal } : {})) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

async function readHead(path: string, bytes: number): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    const head = Buffer.alloc(bytes);
    const { bytesRead } = await file.read(head, 0, bytes, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** `dir/relative`, refusing anything that would land outside `dir`. */
export function resolveInside(dir: string, relative: string): string {
  const root = resolve(dir);
  const full = resolve(root, relative);
  if (!full.startsWith(root + sep)) throw new Error(`model file path ${relative} leaves ${dir}`);
  return full;
}

/**
 * Every reason `file` (relative to `dir`) must not reach onnxruntime: missing, wrong size, a Git LFS
 * pointer instead of the weights, not an ONNX protobuf, wrong sha256. A corrupt .onnx aborts the
 * whole process natively, so this runs before any model is loaded. Empty when the file is fine.
 */
export async function checkModelFile(dir: string, file: FileExpectation, signal?: AbortSignal): Promise<string[]> {
  const path = resolveInside(dir, file.path);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return [`${file.path}: missing`];
  if (info.size === 0) return [`${file.path}: empty`];
  const head = await readHead(path, LFS_POINTER_PREFIX.length);
  if (head.toString("latin1") === LFS_POINTER_PREFIX) {
    return [`${file.path}: a Git LFS pointer, not the file (fetch it with git lfs pull or models:download)`];
  }
  if (file.size !== undefined && info.size !== file.size) {
    return [`${file.path}: ${info.size} bytes, expected ${file.size} (truncated or a different version)`];
  }
  // A serialised ModelProto starts with field 1 (ir_version, varint): tag byte 0x08.
  if (file.path.endsWith(".onnx") && head[0] !== 0x08) return [`${file.path}: not an ONNX model`];
  if (file.sha256 !== undefined) {
    const actual = await sha256File(path, signal);
    if (actual !== file.sha256) return [`${file.path}: sha256 ${actual}, expected ${file.sha256}`];
  }
  return [];
}

export async function checkModelFiles(dir: string, files: readonly FileExpectation[], signal?: AbortSignal): Promise<string[]> {
  const problems: string[] = [];
  for (const file of files) problems.push(...(await checkModelFile(dir, file, signal)));
  return problems;
}

export class ModelVerificationError extends Error {
  override name = "ModelVerificationError";
  readonly problems: readonly string[];
  constructor(dir: string, problems: readonly string[]) {
    super(`model in ${dir} failed verification: ${problems.join("; ")}`);
    this.problems = problems;
  }
}

/** Hashes the files of `spec` as they lie in `dir` and writes the install record beside them, with what was downloaded. */
export async function writeInstallRecord(
  dir: string,
  spec: Pick<ModelSpec, "name" | "family" | "languages" | "detectsLanguage" | "tokenTimestamps"> & { files: readonly ModelFile[] },
  signal?: AbortSignal,
  downloads?: InstalledModel["downloads"],
): Promise<InstalledModel> {
  const files: InstalledModel["files"] = [];
  for (const file of spec.files) {
    const path = resolveInside(dir, file.path);
    files.push({ role: file.role, path: file.path, size: (await stat(path)).size, sha256: await sha256File(path, signal) });
  }
  const record: InstalledModel = {
    name: spec.name,
    family: spec.family,
    languages: [...spec.languages],
    detectsLanguage: spec.detectsLanguage,
    tokenTimestamps: spec.tokenTimestamps,
    files,
    checksumsPinned: downloads ? downloads.every((d) => d.pinned) : spec.files.every((f) => f.sha256 !== undefined),
    ...(downloads ? { downloads } : {}),
    installedAt: new Date().toISOString(),
  };
  await writeFile(join(dir, INSTALL_RECORD), `${JSON.stringify(record, null, 2)}\n`);
  return record;
}

/** The install record in `dir`, or null when there is none or it is not one. */
export async function readInstallRecord(dir: string): Promise<InstalledModel | null> {
  const text = await readFile(join(dir, INSTALL_RECORD), "utf8").catch(() => null);
  if (text === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  return Value.Check(InstalledModelSchema, json) ? json : null;
}

export interface InstalledModelDir {
  dir: string;
  record: InstalledModel;
}

/** Models installed under `modelDir`: `modelDir` itself or its sub-folders holding an install record. */
export async function findInstalledModels(modelDir: string): Promise<InstalledModelDir[]> {
  const found: InstalledModelDir[] = [];
  const own = await readInstallRecord(modelDir);
  if (own) found.push({ dir: modelDir, record: own });
  const entries = await readdir(modelDir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dir = join(modelDir, entry.name);
    const record = await readInstallRecord(dir);
    if (record) found.push({ dir, record });
  }
  return found;
}

/** Checks every file of an installed model against its record; throws ModelVerificationError. */
export async function verifyInstalledModel(model: InstalledModelDir, signal?: AbortSignal): Promise<void> {
  const problems = await checkModelFiles(model.dir, model.record.files, signal);
  if (problems.length > 0) throw new ModelVerificationError(model.dir, problems);
}
