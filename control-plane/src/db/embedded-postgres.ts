import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import type { Logger } from "pino";
import { CLUSTERS_SUBDIR, placeCluster, ROOT_STATE_DIR } from "./embedded/cluster-placement.ts";
import { EmbeddedPostgresError } from "./embedded/embedded-postgres-error.ts";
import { binariesFor, ensureStateDir, packagedBinaries } from "./embedded/postgres-binaries.ts";
import { initCluster, startServer } from "./embedded/postgres-server.ts";

export { EmbeddedPostgresError } from "./embedded/embedded-postgres-error.ts";

export interface EmbeddedPostgresHandle {
  /** Connection string of the application database. */
  url: string;
  /** Connection string of the maintenance database (to create databases in tests). */
  adminUrl: string;
  /** The cluster's data directory. */
  clusterDir: string;
  stop(): Promise<void>;
  /** Stops the cluster and deletes it and its credentials (throw-away clusters: the test runner's). */
  destroy(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Root's home for clusters whose DATA_DIR the database user cannot enter; default /var/lib/caption-service. */
  stateDir?: string;
}

/** DATA_DIR/postgres.json: how to reach the cluster, and where it is when that is not DATA_DIR/postgres. */
interface Credentials {
  port: number;
  password: string;
  clusterDir?: string;
  /** The process that started the server and will stop it. */
  ownerPid?: number;
}

const DATABASE_NAME = "caption";

const urlFor = (credentials: Credentials, database: string) =>
  `postgres://postgres:${encodeURIComponent(credentials.password)}@127.0.0.1:${credentials.port}/${database}`;

/**
 * Starts (or reuses) a real PostgreSQL for `dataDir`. A second start on the same directory reuses the
 * cluster; if one is already running there, it is connected to, not owned. Failures an operator has
 * to fix throw EmbeddedPostgresError, whose message is one line naming cause and fix.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger, options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgresHandle> {
  const root = path.resolve(dataDir);
  const stateDir = options.stateDir ?? ROOT_STATE_DIR;
  await mkdir(root, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    throw new EmbeddedPostgresError(`DATA_DIR ${root} cannot be created (${error.code ?? error.message}): set DATA_DIR to a directory you can write`);
  });
  const credentialsFile = path.join(root, "postgres.json");
  const saved = existsSync(credentialsFile) ? (JSON.parse(await readFile(credentialsFile, "utf8")) as Credentials) : null;
  const cluster = await placeCluster(root, saved?.clusterDir, stateDir);
  const initialised = existsSync(path.join(cluster.dir, "PG_VERSION"));
  if (initialised && !saved) {
    throw new EmbeddedPostgresError(
      `${cluster.dir} holds a database whose password file ${credentialsFile} is gone: restore that file, or delete the old database (rm -rf '${cluster.dir}') to start afresh`,
    );
  }

  const running = saved && initialised ? await runningServer(cluster.dir) : null;
  if (saved && running && saved.ownerPid !== undefined && processAlive(saved.ownerPid)) {
    const credentials = { ...saved, port: running.port };
    logger.info({ port: running.port, cluster_dir: cluster.dir }, "embedded postgres already running; connecting to it");
    return { url: urlFor(credentials, DATABASE_NAME), adminUrl: urlFor(credentials, "postgres"), clusterDir: cluster.dir, stop: async () => {}, destroy: async () => {} };
  }
  if (running) {
    // Its service died without stopping it (killed, or stopped before its signal handlers were in place).
    logger.warn({ pid: running.pid, cluster_dir: cluster.dir }, "stopping an embedded postgres whose service is gone");
    await stopAbandoned(running.pid, cluster.dir);
  }

  const credentials: Credentials = {
    // A saved port may have been taken by something else since the last run.
    port: saved && (await portIsFree(saved.port)) ? saved.port : await freePort(),
    password: saved?.password ?? randomBytes(18).toString("base64url"),
    ...(cluster.external ? { clusterDir: cluster.dir } : {}),
    ownerPid: process.pid,
  };
  const binaries = cluster.user ? await binariesFor(cluster.user, stateDir, logger) : await packagedBinaries();
  const clusterOptions = { binaries, dir: cluster.dir, password: credentials.password, logger, ...(cluster.user ? { user: cluster.user } : {}) };
  if (!initialised) {
    if (saved) logger.warn({ cluster_dir: cluster.dir }, "the embedded database recorded in postgres.json is gone; creating an empty one");
    logger.info({ cluster_dir: cluster.dir, as_user: cluster.user?.name }, "initialising embedded postgres");
    if (cluster.external && cluster.user) await ensureStateDir(stateDir, CLUSTERS_SUBDIR);
    await initCluster(clusterOptions);
  }
  await writeFile(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
  const adminUrl = urlFor(credentials, "postgres");
  const server = await startServer({ ...clusterOptions, port: credentials.port, adminUrl });
  await ensureDatabase(adminUrl, DATABASE_NAME);
  logger.info({ port: credentials.port, cluster_dir: cluster.dir }, "embedded postgres started");
  return {
    url: urlFor(credentials, DATABASE_NAME),
    adminUrl,
    clusterDir: cluster.dir,
    stop: server.stop,
    async destroy() {
      await server.stop();
      await rm(cluster.dir, { recursive: true, force: true });
      await rm(credentialsFile, { force: true });
    },
  };
}

/** Whether process `pid` exists (EPERM: it does, as another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The live process that started the embedded PostgreSQL of `dataDir` and will stop it; null when there is none. */
export async function embeddedPostgresOwner(dataDir: string): Promise<number | null> {
  try {
    const { ownerPid } = JSON.parse(await readFile(path.join(path.resolve(dataDir), "postgres.json"), "utf8")) as Credentials;
    return ownerPid !== undefined && processAlive(ownerPid) ? ownerPid : null;
  } catch {
    return null;
  }
}

/** The PostgreSQL already running on this data directory, from its postmaster.pid. */
async function runningServer(clusterDir: string): Promise<{ pid: number; port: number } | null> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const [pidLine, , , portLine] = (await readFile(pidFile, "utf8")).split("\n");
  const pid = Number(pidLine);
  const port = Number(portLine);
  return pid > 0 && port > 0 && processAlive(pid) ? { pid, port } : null;
}

/** Fast shutdown of a server nobody owns any more, so this process can start (and later stop) its own. */
async function stopAbandoned(pid: number, clusterDir: string): Promise<void> {
  process.kill(pid, "SIGINT");
  for (let waited = 0; processAlive(pid); waited += 100) {
    if (waited === 30_000) process.kill(pid, "SIGQUIT");
    if (waited > 60_000) throw new EmbeddedPostgresError(`the PostgreSQL left running on ${clusterDir} (pid ${pid}) does not stop: stop it (kill ${pid}) and start again`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
}
