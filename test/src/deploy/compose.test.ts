import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";
import { isKnownVariable } from "./env-names.ts";

interface Service {
  build?: { context: string; dockerfile: string };
  image?: string;
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  stop_grace_period?: string;
  profiles?: string[];
  deploy?: { resources: { reservations: { devices: { driver: string; count: number | string; capabilities: string[] }[] } } };
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const DOCKER_DIR = path.join(REPO_ROOT, "docker");
const load = (file: string) => parse(readFileSync(path.join(DOCKER_DIR, file), "utf8")) as Compose;
const base = load("compose.yml");
const gpu = load("compose.gpu.yml");
const seconds = (duration: string) => {
  const m = /^(\d+)(s|m)$/.exec(duration);
  assert.ok(m, duration);
  return Number(m[1]) * (m[2] === "m" ? 60 : 1);
};

test("compose.yml: postgres, api and the CPU worker built from the Dockerfiles; MinIO only under the s3 profile", () => {
  assert.deepEqual(Object.keys(base.services).filter((s) => !base.services[s]?.profiles).sort(), ["api", "postgres", "worker"]);
  const builds = [["api", base.services.api?.build, "docker/control-plane/Dockerfile"], ["worker", base.services.worker?.build, "docker/cpu-worker/Dockerfile"], ["gpu worker", gpu.services.worker?.build, "docker/gpu-worker/Dockerfile"]] as const;
  for (const [name, build, dockerfile] of builds) {
    assert.ok(build, name);
    const context = path.resolve(DOCKER_DIR, build.context);
    assert.equal(context, REPO_ROOT, "the build context is the repository root, as the Dockerfiles expect");
    assert.equal(build.dockerfile, dockerfile);
    assert.ok(existsSync(path.join(context, build.dockerfile)));
  }
  assert.deepEqual(base.services.minio?.profiles, ["s3"]);
  assert.deepEqual(base.services["minio-bucket"]?.profiles, ["s3"]);
  for (const service of Object.values(base.services)) {
    for (const volume of (service as { volumes?: string[] }).volumes ?? []) {
      const source = volume.split(":")[0] ?? "";
      assert.ok(source in (base.volumes ?? {}), `volume ${source} is not declared`);
    }
  }
});

test("compose.yml: the service containers get only variables the service reads", () => {
  for (const name of ["api", "worker"]) {
    const environment = base.services[name]?.environment ?? {};
    assert.ok("DATABASE_URL" in environment, `${name} needs DATABASE_URL`);
    for (const variable of Object.keys(environment)) assert.ok(isKnownVariable(variable), `${name}: ${variable} is not in shared/src/config/env.ts`);
  }
  for (const variable of Object.keys(gpu.services.worker?.environment ?? {})) assert.ok(isKnownVariable(variable), variable);
});

test("compose.yml: the worker starts after the API has migrated and outlasts its drain on stop", () => {
  const worker = base.services.worker;
  assert.equal(worker?.depends_on?.api?.condition, "service_healthy");
  assert.equal(base.services.api?.depends_on?.postgres?.condition, "service_healthy");
  const grace = Number(worker?.environment?.SHUTDOWN_GRACE_SECONDS);
  assert.ok(seconds(worker?.stop_grace_period ?? "0s") > grace + 10, "stop_grace_period must exceed SHUTDOWN_GRACE_SECONDS");
});

test("compose.gpu.yml runs the CUDA worker image with an NVIDIA GPU and the video capability", () => {
  assert.deepEqual(Object.keys(gpu.services), ["worker"]);
  assert.equal(gpu.services.worker?.image, "caption-gpu-worker:local");
  assert.notEqual(base.services.worker?.image, gpu.services.worker?.image, "the two worker images have names of their own");
  const device = gpu.services.worker?.deploy?.resources.reservations.devices[0];
  assert.equal(device?.driver, "nvidia");
  for (const capability of ["gpu", "video"]) assert.ok(device?.capabilities.includes(capability), capability);
});
