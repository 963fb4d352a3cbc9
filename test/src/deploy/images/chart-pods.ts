// The check runs the containers the way the chart's pods run them: the rendered Deployments' and the
// migration Job's command, environment, user, read-only root filesystem, dropped capabilities and volumes,
// turned into podman arguments. Only what loopback needs differs: the listening ports and addresses.
import assert from "node:assert/strict";
import { objectOf, renderChart, type KubernetesObject } from "../chart/render.ts";

interface EnvEntry {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef: { name: string; key: string } };
}
interface Container {
  command?: string[];
  args?: string[];
  env: EnvEntry[];
  volumeMounts: { name: string; mountPath: string }[];
  securityContext: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
}
interface PodSpec {
  securityContext: { runAsUser?: number; runAsGroup?: number; runAsNonRoot?: boolean };
  containers: Container[];
  volumes: { name: string; emptyDir?: object; persistentVolumeClaim?: { claimName: string } }[];
  terminationGracePeriodSeconds?: number;
}

export interface PodRun {
  /** podman run arguments before the image. */
  options: string[];
  /** After the image: the command (with --entrypoint) or the args (the image's entrypoint stays). */
  command: string[];
  /** How long the kubelet would wait after SIGTERM. */
  terminationGraceSeconds: number;
}

export interface ChartPods {
  api: PodRun;
  worker: PodRun;
  migrate: PodRun;
}

export interface PodInputs {
  /** Secret values by `name/key`. */
  secrets: Record<string, string>;
  /** Environment the check sets over the chart's (loopback ports and addresses). */
  loopback: { api: Record<string, string>; worker: Record<string, string> };
  /** podman volume names: the shared results claim, and a prefix for each pod's own emptyDirs. */
  volumes: { claim: string; prefix: string };
}

const podSpecOf = (object: KubernetesObject) => (object as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;

function podRun(name: string, spec: PodSpec, inputs: PodInputs, overrides: Record<string, string>): PodRun {
  const [container, ...others] = spec.containers;
  assert.ok(container && others.length === 0, `${name}: one container`);
  const options: string[] = [];
  const { runAsUser, runAsGroup } = spec.securityContext;
  assert.ok(spec.securityContext.runAsNonRoot && runAsUser && runAsUser !== 0, `${name} runs as a non-root user`);
  options.push("--user", `${runAsUser}:${runAsGroup ?? runAsUser}`);
  if (container.securityContext.readOnlyRootFilesystem) options.push("--read-only", "--read-only-tmpfs=false");
  if (container.securityContext.allowPrivilegeEscalation === false) options.push("--security-opt", "no-new-privileges");
  for (const cap of container.securityContext.capabilities?.drop ?? []) options.push(`--cap-drop=${cap.toLowerCase()}`);
  for (const mount of container.volumeMounts) {
    const volume = spec.volumes.find((v) => v.name === mount.name);
    assert.ok(volume, `${name}: volume ${mount.name}`);
    const source = volume.persistentVolumeClaim ? inputs.volumes.claim : `${inputs.volumes.prefix}-${name}-${mount.name}`;
    assert.ok(volume.persistentVolumeClaim || volume.emptyDir, `${name}: ${mount.name} is an emptyDir or a claim`);
    options.push("-v", `${source}:${mount.mountPath}`);
  }
  const env = new Map<string, string>();
  for (const entry of container.env) {
    const ref = entry.valueFrom?.secretKeyRef;
    const value = ref ? inputs.secrets[`${ref.name}/${ref.key}`] : entry.value;
    assert.ok(value !== undefined, `${name}: ${entry.name} has no value here`);
    env.set(entry.name, value);
  }
  for (const [key, value] of Object.entries(overrides)) env.set(key, value);
  for (const [key, value] of env) options.push("-e", `${key}=${value}`);
  const command = container.command ? ["--entrypoint", JSON.stringify(container.command)] : [];
  return { options: [...options, ...command], command: container.args ?? [], terminationGraceSeconds: spec.terminationGracePeriodSeconds ?? 30 };
}

/** Renders the chart with `values` and turns its API, worker and migration pods into podman runs. */
export async function chartPods(values: Record<string, unknown>, inputs: PodInputs): Promise<ChartPods> {
  const { objects, run } = await renderChart(values);
  assert.equal(run.exitCode, 0, run.stderr);
  const migrateJob = objectOf(objects, "Job", "-migrate") as unknown as { spec: { template: { spec: PodSpec } } };
  return {
    api: podRun("api", podSpecOf(objectOf(objects, "Deployment", "-api")), inputs, inputs.loopback.api),
    worker: podRun("worker", podSpecOf(objectOf(objects, "Deployment", "-worker")), inputs, inputs.loopback.worker),
    migrate: podRun("migrate", migrateJob.spec.template.spec, inputs, {}),
  };
}
