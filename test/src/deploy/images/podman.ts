// podman as this kind of machine allows it (docs/operations.md "Checking the images"): runc (crun is
// refused where cgroups are hybrid), the cgroupfs manager, the host's network, and no default ulimits
// (setting RLIMIT_NOFILE is not permitted). Set through a containers.conf of our own (CONTAINERS_CONF),
// so the machine's /etc/containers is left as it is.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa, type ResultPromise } from "execa";

const CONTAINERS_CONF = `[containers]
default_ulimits = []
netns = "host"
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
`;

/** The Debian packages the check needs, by the command each provides. */
const TOOLS: Record<string, string> = { podman: "podman", runc: "runc", mmdebstrap: "mmdebstrap" };

export interface Podman {
  /** Runs podman; rejects with its stderr on a non-zero exit. */
  (args: string[], options?: { input?: string; inherit?: boolean }): Promise<string>;
  /** Starts podman without waiting (a container in the foreground, a build with its output streamed). */
  spawn(args: string[]): ResultPromise;
  env: Record<string, string>;
}

/** Installs podman, runc and mmdebstrap with apt when missing (as root), and configures podman for this machine. */
export async function preparePodman(workDir: string, log: (line: string) => void): Promise<Podman> {
  const missing: string[] = [];
  for (const [command, pkg] of Object.entries(TOOLS)) {
    if ((await execa("sh", ["-c", `command -v ${command}`], { reject: false })).exitCode !== 0) missing.push(pkg);
  }
  if (missing.length > 0) {
    if (process.getuid?.() !== 0) throw new Error(`images:check needs ${missing.join(", ")}: install them with apt-get (as root) and run again`);
    log(`installing ${missing.join(" ")} with apt-get`);
    await execa("apt-get", ["update", "-qq"]);
    await execa("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { env: { DEBIAN_FRONTEND: "noninteractive" } });
  }
  await mkdir(workDir, { recursive: true });
  const conf = path.join(workDir, "containers.conf");
  await writeFile(conf, CONTAINERS_CONF);
  const env = { CONTAINERS_CONF: conf };
  const podman = (async (args, options = {}) => {
    const result = await execa("podman", args, {
      env,
      reject: false,
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.inherit ? { stdout: "inherit", stderr: "inherit" } : {}),
    });
    if (result.exitCode !== 0) throw new Error(`podman ${args.slice(0, 3).join(" ")} … failed (exit ${result.exitCode}): ${String(result.stderr ?? "").trim().slice(-4000)}`);
    return String(result.stdout ?? "").trim();
  }) as Podman;
  podman.spawn = (args) => execa("podman", args, { env, reject: false, all: true });
  podman.env = env;
  return podman;
}

export const imageExists = async (podman: Podman, image: string) => (await podman(["image", "exists", image]).then(() => true, () => false));
