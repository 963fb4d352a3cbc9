// Test helper: the models:download command as a real process, with a manifest the test writes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import type { ModelManifest } from "../asr/sherpa/model-manifest.ts";

const CLI = join(import.meta.dirname, "..", "cli", "models-download.ts");

/**
 * Writes `manifest` into `work` and starts `models-download --manifest … args` (not rejecting on a
 * non-zero exit). `env` adds to the test's environment; ASR_MODEL_DIR is cleared unless given.
 */
export function runModelsDownload(work: string, manifest: ModelManifest, args: string[], env: Record<string, string> = {}) {
  const manifestPath = join(work, `manifest-${manifest.models[0]?.name ?? "none"}-${Date.now().toString(36)}.json`);
  writeFileSync(manifestPath, JSON.stringify(manifest));
  return execa(process.execPath, [CLI, "--manifest", manifestPath, ...args], { reject: false, env: { ASR_MODEL_DIR: "", ...env } });
}
