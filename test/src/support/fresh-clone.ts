import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { TEST_DATABASE_TEMPLATE_VARIABLE } from "@caption/shared/testing/test-database";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";

const run = promisify(execFile);

/**
 * What a clone of this repository holds, as files on disk: tracked files plus new ones git does not
 * ignore (so uncommitted work is tested too), and nothing ignored (no node_modules, .tools, .data,
 * installed models). Written into `<a fresh 0700 directory under $HOME>/caption-service`, with no
 * shared/ or anything else beside it.
 */
export async function copyRepositoryToPrivateHome(): Promise<{ parent: string; clone: string }> {
  const parent = await mkdtemp(path.join(process.env.HOME ?? homedir(), "caption-fresh-clone-"));
  const clone = path.join(parent, "caption-service");
  const { stdout } = await run("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: REPO_ROOT, maxBuffer: 64 << 20 });
  for (const file of stdout.split("\0").filter((f) => f !== "" && existsSync(path.join(REPO_ROOT, f)))) {
    await mkdir(path.dirname(path.join(clone, file)), { recursive: true });
    await copyFile(path.join(REPO_ROOT, file), path.join(clone, file));
  }
  return { parent, clone };
}

/**
 * The environment of a newcomer's shell: this test run's settings for the service (its own database,
 * data directory, npm's per-script variables) taken out, `extra` added.
 */
export function newcomerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const dropped = new Set(["NODE_TEST_CONTEXT", "DATABASE_URL", "DATA_DIR", "ASR_MODEL_DIR", "TEST_DATABASE_ADMIN_URL", "INIT_CWD", "NODE_COMPILE_CACHE", TEST_DATABASE_TEMPLATE_VARIABLE]);
  for (const [key, value] of Object.entries(process.env)) if (!dropped.has(key) && !key.startsWith("npm_")) env[key] = value;
  return { ...env, ...extra };
}

/** `npm <args>` in `cwd`; resolves with its exit code and everything it printed. */
export async function npm(cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn("npm", args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, output };
}

export interface StartedService {
  child: ChildProcess;
  /** The JSON log lines so far. */
  log: Record<string, unknown>[];
  /** Everything the process printed, for failure messages. */
  output(): string;
  url: Promise<string>;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/** `npm start` in `cwd`; `url` resolves at the service's "caption service ready" line. */
export function npmStart(cwd: string, env: NodeJS.ProcessEnv): StartedService {
  const child = spawn("npm", ["start"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const log: Record<string, unknown>[] = [];
  const lines: string[] = [];
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const url = new Promise<string>((resolve, reject) => {
    void exited.then(([code]) => reject(new Error(`npm start exited with ${code} before it was ready:\n${lines.join("\n")}`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      lines.push(line);
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        log.push(entry);
        if (entry.msg === "caption service ready" && typeof entry.url === "string") resolve(entry.url);
      } catch {
        // npm's own banner lines
      }
    });
  });
  createInterface({ input: child.stderr }).on("line", (line) => lines.push(line));
  return { child, log, output: () => lines.join("\n"), url, exited };
}

/**
 * `command` (a shell line) in `cwd` under a pseudo-terminal, as a person types it (util-linux `script`): what it
 * drew, escape sequences included, its exit code, and how long it took.
 */
export async function inTerminal(cwd: string, command: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string; seconds: number }> {
  const started = performance.now();
  const child = spawn("script", ["-qefc", command, "/dev/null"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, output, seconds: (performance.now() - started) / 1000 };
}
