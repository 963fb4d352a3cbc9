// Builds the API and CPU worker images from the repository's Dockerfiles on the local base, the worker's
// speech model from the loopback mirror, and the check's PostgreSQL. Reports each build's time and size.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { REPO_ROOT } from "../../fixtures/repo-paths.ts";
import { isIgnored, readDockerfile } from "../dockerfile.ts";
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

/** Files under `source` (relative to `context`) that the context's .dockerignore lets in. */
function contextFiles(context: string, source: string): string[] {
  const ignore = existsSync(path.join(context, ".dockerignore")) ? readFileSync(path.join(context, ".dockerignore"), "utf8") : "";
  const full = path.join(context, source);
  const files = statSync(full).isDirectory() ? readdirSync(full, { recursive: true, encoding: "utf8" }).map((f) => path.posix.join(source, f)) : [source];
  return files.filter((f) => statSync(path.join(context, f)).isFile() && !isIgnored(ignore, f)).sort();
}

/**
 * A hash of everything a build takes: the Dockerfile, its build arguments and the files its COPY
 * instructions take from the context. An image labelled with the same hash needs no build: even a fully
 * cached `podman build` spends a minute hashing what its COPY steps take.
 */
function buildInputs(file: string, args: string[], context: string): string {
  const hash = createHash("sha256").update(readFileSync(file)).update(JSON.stringify(args));
  for (const copy of readDockerfile(file).filter((i) => (i.keyword === "COPY" || i.keyword === "ADD") && i.flags.from === undefined)) {
    for (const source of copy.args.slice(0, -1)) {
      for (const f of contextFiles(context, source)) hash.update(f).update(readFileSync(path.join(context, f)));
    }
  }
  return hash.digest("hex");
}

const INPUTS_LABEL = "caption.images-check.inputs";

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
    const inputs = buildInputs(build.file, build.args, build.context);
    const labelled = await podman(["image", "inspect", "--format", `{{index .Labels "${INPUTS_LABEL}"}}`, build.name]).catch(() => "");
    if (labelled === inputs) {
      log(`${build.name}: built from these very inputs already`);
      built.push({ name: build.name, seconds: 0, sizeBytes: Number(await podman(["image", "inspect", "--format", "{{.Size}}", build.name])) });
      continue;
    }
    log(`build ${build.name} from ${path.relative(REPO_ROOT, build.file)}`);
    const args = ["build", "--network", "host", "--layers", "--label", `${INPUTS_LABEL}=${inputs}`, ...trust, ...build.args.flatMap((a) => ["--build-arg", a]), "-f", build.file, "-t", build.name, build.context];
    const run = await podman.spawn(args);
    if (run.exitCode !== 0) throw new Error(`building ${build.name} failed:\n${String(run.all ?? "").split("\n").slice(-40).join("\n")}`);
    const sizeBytes = Number(await podman(["image", "inspect", "--format", "{{.Size}}", build.name]));
    built.push({ name: build.name, seconds: (Date.now() - started) / 1000, sizeBytes });
  }
  return built;
}
