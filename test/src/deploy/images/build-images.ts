// Builds the API and CPU worker images from the repository's Dockerfiles on the local base, the worker's
// speech model from the loopback mirror, and the check's PostgreSQL. Reports each build's time and size.
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { REPO_ROOT } from "../../fixtures/repo-paths.ts";
import { MIRRORED_MODEL, type ModelMirror } from "./model-mirror.ts";
import type { Podman } from "./podman.ts";

export const IMAGES = { api: "localhost/caption-control-plane:check", worker: "localhost/caption-cpu-worker:check", postgres: "localhost/caption-check-postgres:15" };

/**
 * Where the machine reaches the npm registry through a TLS-inspecting proxy, its CA bundle: mounted into
 * the builds' RUN steps with an npmrc naming it (never copied into an image). None where npm needs none.
 */
async function buildTrustMounts(workDir: string): Promise<string[]> {
  const configured = (await execa("npm", ["config", "get", "cafile"], { reject: false })).stdout.trim();
  const bundle = [configured, process.env.NODE_EXTRA_CA_CERTS ?? ""].find((file) => file !== "" && file !== "null" && existsSync(file));
  if (!bundle) return [];
  const dir = path.join(workDir, "build-trust");
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "npmrc"), "cafile=/run/caption-build/ca.crt\n");
  return ["-v", `${bundle}:/run/caption-build/ca.crt:ro`, "-v", `${path.join(dir, "npmrc")}:/usr/local/etc/npmrc:ro`];
}

export interface BuiltImage {
  name: string;
  seconds: number;
  sizeBytes: number;
}

export async function buildImages(podman: Podman, base: string, mirror: ModelMirror, workDir: string, log: (line: string) => void): Promise<BuiltImage[]> {
  const trust = await buildTrustMounts(workDir);
  const builds: { name: string; file: string; args: string[]; context: string }[] = [
    { name: IMAGES.api, file: "docker/control-plane/Dockerfile", args: [`NODE_IMAGE=${base}`], context: REPO_ROOT },
    {
      name: IMAGES.worker,
      file: "docker/cpu-worker/Dockerfile",
      args: [`NODE_IMAGE=${base}`, `ASR_MODEL=${MIRRORED_MODEL}`, "ASR_MODEL_TRUST_ON_FIRST_USE=1", `ASR_MODEL_MIRROR=${mirror.url}`],
      context: REPO_ROOT,
    },
    { name: IMAGES.postgres, file: path.join(import.meta.dirname, "postgres.Containerfile"), args: [`BASE=${base}`], context: import.meta.dirname },
  ];
  const built: BuiltImage[] = [];
  for (const build of builds) {
    const started = Date.now();
    log(`build ${build.name} from ${path.relative(REPO_ROOT, build.file)}`);
    const args = ["build", "--network", "host", "--layers", ...trust, ...build.args.flatMap((a) => ["--build-arg", a]), "-f", build.file, "-t", build.name, build.context];
    const run = await podman.spawn(args);
    if (run.exitCode !== 0) throw new Error(`building ${build.name} failed:\n${String(run.all ?? "").split("\n").slice(-40).join("\n")}`);
    const sizeBytes = Number(await podman(["image", "inspect", "--format", "{{.Size}}", build.name]));
    built.push({ name: build.name, seconds: (Date.now() - started) / 1000, sizeBytes });
  }
  return built;
}
