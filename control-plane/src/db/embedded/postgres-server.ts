import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { chmod, chown, mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import type { Logger } from "pino";
import type { DatabaseUser } from "./database-user.ts";
import { EmbeddedPostgresError, lastLine } from "./embedded-postgres-error.ts";
import type { PostgresBinaries } from "./postgres-binaries.ts";

export interface ClusterOptions {
  binaries: PostgresBinaries;
  /** PGDATA */
  dir: string;
  /** Superuser `postgres`'s password. */
  password: string;
  /** Set when this process is root. */
  user?: DatabaseUser;
  logger: Logger;
}

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

// What PostgreSQL's processes inherit: only what running them needs. The service's own environment holds
// URL_SIGNING_SECRET, database URLs and cloud keys, which a database server has no use for (and which any
// of its processes, extensions included, could read from /proc).
const INHERITED = ["PATH", "LD_LIBRARY_PATH", "TZ", "TMPDIR"] as const;

/** The environment of initdb and postgres: the few variables they need, and messages in English whatever the locale. */
export function serverEnv(parent: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { LC_ALL: "C", LANG: "C" };
  for (const name of INHERITED) if (parent[name] !== undefined) env[name] = parent[name];
  return env;
}
const asUser = (user?: DatabaseUser) => (user ? { uid: user.uid, gid: user.gid } : {});

/** Runs initdb: a new cluster in an empty (or absent) `dir`, owned by the user it will run as. */
export async function initCluster(options: ClusterOptions): Promise<void> {
  const { binaries, dir, password, user } = options;
  const parent = path.dirname(dir);
  await mkdir(parent, { recursive: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // The password reaches initdb in a file only it can read, beside the cluster (not in a shared /tmp).
  const passwordFile = path.join(parent, `.${path.basename(dir)}.password-${randomBytes(6).toString("hex")}`);
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (user) await Promise.all([chown(dir, user.uid, user.gid), chown(passwordFile, user.uid, user.gid)]);
    await chmod(dir, 0o700);
    const args = [`--pgdata=${dir}`, "--auth=scram-sha-256", "--username=postgres", `--pwfile=${passwordFile}`, "--encoding=UTF8", "--locale=C", "--no-instructions"];
    const child = spawn(binaries.initdb, args, { ...asUser(user), cwd: "/", env: serverEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await Promise.race([once(child, "exit"), once(child, "error").then(([error]) => Promise.reject(error as Error))])) as [number | null];
    options.logger.debug({ initdb: output }, "initdb");
    if (code !== 0) throw new EmbeddedPostgresError(`initdb could not create the database in ${dir}: ${lastLine(output)}`);
  } catch (error) {
    if (error instanceof EmbeddedPostgresError) throw error;
    throw new EmbeddedPostgresError(`initdb could not run (${binaries.initdb}): ${(error as Error).message}`);
  } finally {
    await rm(passwordFile, { force: true });
  }
}

export interface RunningServer {
  /** Fast shutdown (SIGINT): open sessions are ended, everything committed is kept. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the server on 127.0.0.1:`port` (TCP only: no Unix socket to collide on in /tmp) and resolves
 * once it accepts the superuser's password. It runs in a process group of its own, so a Ctrl-C in
 * the terminal reaches only the service, which stops the database last, after its worker has let go.
 */
export async function startServer(options: ClusterOptions & { port: number; adminUrl: string }): Promise<RunningServer> {
  const { binaries, dir, port, user, logger } = options;
  const args = ["-D", dir, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"];
  const child = spawn(binaries.postgres, args, { ...asUser(user), cwd: "/", env: serverEnv(), detached: true, stdio: ["ignore", "ignore", "pipe"] });
  const recent: string[] = [];
  child.stderr?.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n").filter((l) => l.trim() !== "")) {
      recent.push(line);
      if (recent.length > 20) recent.shift();
      logger.debug({ postgres: line.trim() }, "postgres");
    }
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", (error) => {
      recent.push(error.message);
      resolve();
    });
  });
  let running = true;
  void exited.then(() => (running = false));

  try {
    await untilAccepting(options.adminUrl, () => running, () => lastLine(recent.join("\n")), options);
  } catch (error) {
    await stopChild(child, exited);
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return { stop: () => (stopping ??= stopChild(child, exited)) };
}

async function untilAccepting(url: string, running: () => boolean, lastWords: () => string, { dir, port }: { dir: string; port: number }): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (!running()) throw new EmbeddedPostgresError(`PostgreSQL did not start on its database in ${dir}: ${lastWords()}`);
    if (await accepts(url)) return;
    if (Date.now() > deadline) throw new EmbeddedPostgresError(`PostgreSQL did not accept connections within ${START_TIMEOUT_MS / 1000} s on port ${port}: ${lastWords()}`);
    await delay(100);
  }
}

async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on("error", () => {});
  try {
    await client.connect();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "28P01") {
      throw new EmbeddedPostgresError(`PostgreSQL refused the password in postgres.json (${(error as Error).message}): restore the postgres.json that belongs to this database`);
    }
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGINT");
  // Immediate shutdown if the fast one hangs; the next start recovers from the WAL.
  const timer = setTimeout(() => child.kill("SIGQUIT"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
