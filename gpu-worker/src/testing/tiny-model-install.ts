import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { writeInstallRecord } from "../asr/sherpa/model-files.ts";
import type { FileRole, InstalledModel, ModelSpec } from "../asr/sherpa/model-manifest.ts";

/** What an install record says about a model: a manifest entry, or a test model's defaults. */
export type ModelDescription = Pick<ModelSpec, "name" | "family" | "languages" | "detectsLanguage" | "tokenTimestamps" | "files">;

/** Where the file of `role` lies in `dir`, by the description's file list. */
export function rolePath(dir: string, files: ModelDescription["files"], role: FileRole): string {
  const file = files.find((f) => f.role === role);
  if (!file) throw new Error(`no ${role} file`);
  return join(dir, file.path);
}

/** Writes a test model's files with `write` and records them as installed, as `models:download` would. */
export async function installDescribed(
  dir: string,
  description: ModelDescription,
  write: (path: (role: FileRole) => string) => Promise<void>,
): Promise<InstalledModel> {
  await mkdir(dir, { recursive: true });
  await write((role) => rolePath(dir, description.files, role));
  return writeInstallRecord(dir, description);
}
