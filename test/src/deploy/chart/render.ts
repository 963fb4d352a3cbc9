// The chart rendered by Helm itself (`helm template`, `helm lint --strict`) for a set of values given as
// overlays on values.yaml, the way an operator's -f files are.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { REPO_ROOT } from "../../fixtures/repo-paths.ts";
import { helm, type HelmRun } from "./helm.ts";

export const CHART_DIR = path.join(REPO_ROOT, "helm", "caption-service");
const chart = parse(readFileSync(path.join(CHART_DIR, "Chart.yaml"), "utf8")) as { kubeVersion: string };
/** The oldest Kubernetes the chart says it supports (`kubeVersion: ">=1.25.0-0"` → 1.25.0): what it is rendered for. */
export const MIN_KUBERNETES = /^>=\s*(\d+\.\d+\.\d+)/.exec(chart.kubeVersion)?.[1] ?? "";
export const RELEASE = "captions";

export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export type Values = Record<string, unknown>;

/** `-f` arguments: each overlay written to a file named by its content (under .tmp/), or a chart-relative values file. */
async function valueFiles(layers: readonly (Values | string)[]): Promise<string[]> {
  const dir = path.join(REPO_ROOT, ".tmp", "helm-values");
  await mkdir(dir, { recursive: true });
  const args: string[] = [];
  for (const layer of layers) {
    if (typeof layer === "string") {
      args.push("-f", path.join(CHART_DIR, layer));
      continue;
    }
    const text = JSON.stringify(layer, null, 2);
    const file = path.join(dir, `${createHash("sha256").update(text).digest("hex").slice(0, 16)}.json`);
    await writeFile(file, text);
    args.push("-f", file);
  }
  return args;
}

const rendered = new Map<string, Promise<HelmRun>>();

/** `helm template` for the chart's oldest Kubernetes; the objects it rendered (none when it failed: see `run`). Each set of values is rendered once. */
export async function renderChart(...layers: (Values | string)[]): Promise<{ objects: KubernetesObject[]; run: HelmRun }> {
  const args = ["template", RELEASE, CHART_DIR, "--kube-version", MIN_KUBERNETES, ...(await valueFiles(layers))];
  const key = args.join("\0");
  if (!rendered.has(key)) rendered.set(key, helm(args));
  const run = await (rendered.get(key) as Promise<HelmRun>);
  if (run.exitCode !== 0) return { objects: [], run };
  const objects = parseAllDocuments(run.stdout)
    .map((doc) => doc.toJS() as KubernetesObject | null)
    .filter((object): object is KubernetesObject => object !== null);
  return { objects, run };
}

/** `helm lint --strict` with the same values. */
export async function lintChart(...layers: (Values | string)[]): Promise<HelmRun> {
  return helm(["lint", "--strict", CHART_DIR, "--kube-version", MIN_KUBERNETES, ...(await valueFiles(layers))]);
}

/** The one object of `kind` whose name ends with `suffix` (e.g. "-worker"). */
export function objectOf(objects: readonly KubernetesObject[], kind: string, suffix = ""): KubernetesObject {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name.endsWith(suffix));
  if (found.length !== 1) throw new Error(`expected one ${kind} named …${suffix}, rendered ${found.length}: ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(", ")}`);
  return found[0] as KubernetesObject;
}
