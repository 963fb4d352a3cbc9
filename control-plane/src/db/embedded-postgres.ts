import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import type { Logger } from "pino";
import { placeCluster, ROOT_STATE_DIR } from "./embedded/cluster-placement.ts";
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

  const alreadyRunning = saved && initialised ? await runningPort(cluster.dir) : null;
  if (saved && alreadyRunning) {
    const credentials = { ...saved, port: alreadyRunning };
    logger.info({ port: alreadyRunning, cluster_dir: cluster.dir }, "embedded postgres already running; connecting to it");
    return { url: urlFor(credentials, DATABASE_NAME), adminUrl: urlFor(credentials, "postgres"), clusterDir: cluster.dir, stop: async () => {}, destroy: async () => {} };
  }

  const credentials: Credentials = {
    // A saved port may have been taken by something else since the last run.
    port: saved && (await portIsFree(saved.port)) ? saved.port : await freePort(),
    password: saved?.password ?? randomBytes(18).toString("base64url"),
    ...(cluster.external ? { clusterDir: cluster.dir } : {}),
  };
  if (cluster.user) await ensureStateDir(stateDir);
  const binaries = cluster.user ? await binariesFor(cluster.user, stateDir, logger) : await packagedBinaries();
  const clusterOptions = { binaries, dir: cluster.dir, password: credentials.password, logger, ...(cluster.user ? { user: cluster.user } : {}) };
  if (!initialised) {
    if (saved) logger.warn({ cluster_dir: cluster.dir }, "the embedded database recorded in postgres.json is gone; creating an empty one");
    logger.info({ cluster_dir: cluster.dir, as_user: cluster.user?.name }, "initialising embedded postgres");
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

/** Port of a PostgreSQL already running on this data directory, read from its postmaster.pid. */
async function runningPort(clusterDir: string): Promise<number | null> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const [pidLine, , , portLine] = (await readFile(pidFile, "utf8")).split("\n");
  try {
    process.kill(Number(pidLine), 0);
  } catch {
    return null;
  }
  return Number(portLine) || null;
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
