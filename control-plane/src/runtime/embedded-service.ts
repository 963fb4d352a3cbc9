import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createCliLogger } from "@caption/shared/runtime/logger";
import { startEmbeddedPostgres } from "../db/embedded-postgres.ts";
import { spawnService, type ServiceEntry, type ServiceProcess } from "./service-process.ts";

const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;
const POSTGRES_STOP_TIMEOUT_MS = 30_000;

export interface EmbeddedServiceOptions {
  /** The entry point (e.g. scripts/embedded.ts, as `npm start` runs it). */
  entry: ServiceEntry;
  /** DATA_DIR: the embedded PostgreSQL, scratch space and the log (service.log) go here. */
  dataDir: string;
  env?: Record<string, string>;
  /** Node flags for the service's process (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** Arguments of the entry point (e.g. --attached). */
  args?: string[];
  /** Its own process group: a terminal's Ctrl-C reaches the caller alone, which decides what the service does. */
  detached?: boolean;
}

export interface EmbeddedService extends ServiceProcess {
  /** Where the API listens. */
  url: string;
  /** Its embedded PostgreSQL, joined as the admin CLI joins it. */
  databaseUrl: string;
  pid: number;
  /** Its JSON log, stdout and stderr together. */
  logFile: string;
}

/**
 * Starts a service entry point over an embedded PostgreSQL in `dataDir`, in a process of its own (a benchmark's
 * load and measurements do not share its event loop), and resolves once it logs "caption service ready". Its
 * output goes to a log file read only while someone waits for a line; its stdin stays open while the caller
 * runs. stop() also waits for its PostgreSQL to finish stopping.
 */
export async function startEmbeddedService(options: EmbeddedServiceOptions): Promise<EmbeddedService> {
  await mkdir(options.dataDir, { recursive: true });
  const logFile = path.join(options.dataDir, "service.log");
  const service = spawnService(options.entry, { DATA_DIR: options.dataDir, DATABASE_URL: "", ...options.env }, {
    logFile,
    nodeArgs: options.nodeArgs,
    args: options.args,
    detached: options.detached,
    stdin: "pipe",
    killAfterMs: STOP_TIMEOUT_MS,
  });
  const stop = async () => {
    const how = await service.stop();
    // PostgreSQL may still be finishing its shutdown checkpoint; it removes its pid file last.
    const pidFile = path.join(options.dataDir, "postgres", "postmaster.pid");
    for (let waited = 0; existsSync(pidFile) && waited < POSTGRES_STOP_TIMEOUT_MS; waited += 100) await sleep(100);
    return how;
  };
  const ready = await service.waitForLine((entry) => entry.msg === "caption service ready" && typeof entry.url === "string", READY_TIMEOUT_MS).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  const { url: databaseUrl } = await startEmbeddedPostgres(options.dataDir, createCliLogger("warn"));
  return { ...service, url: ready.url as string, databaseUrl, pid: service.child.pid ?? 0, logFile, stop };
}
