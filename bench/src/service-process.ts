import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, existsSync, openSync } from "node:fs";
import { chmod, mkdtemp, open, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createCliLogger } from "@caption/shared/runtime/logger";
import { REPO_ROOT } from "./repo-root.ts";
import { startEmbeddedPostgres } from "@caption/control-plane";

const READY_TIMEOUT_MS = 120_000;
const LOG_POLL_MS = 100;
const STOP_TIMEOUT_MS = 60_000;
const POSTGRES_STOP_TIMEOUT_MS = 30_000;

export type LogEntry = Record<string, unknown> & { msg?: string };

export interface ServiceProcess {
  /** Where the API listens. */
  url: string;
  /** Its embedded PostgreSQL, joined as the admin CLI joins it. */
  databaseUrl: string;
  pid: number;
  /** Its JSON log, stdout and stderr together. */
  logFile: string;
  /** The first log line, past or future, that `match` accepts. */
  waitForLine(match: (entry: LogEntry) => boolean): Promise<LogEntry>;
  /** SIGTERM (SIGKILL after a minute), then waits for its embedded PostgreSQL to finish stopping. */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** The entry point, relative to the repository root (e.g. scripts/embedded.ts, as `npm start` runs it). */
  entry: string;
  /** DATA_DIR: the embedded PostgreSQL, scratch space and the log go here. */
  dataDir: string;
  env?: Record<string, string>;
  /** Node flags for the service's process (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

/** A fresh folder for a benchmark's service and files; run as root, embedded PostgreSQL initialises its cluster in it as the postgres user. */
export async function makeWorkDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "caption-bench-"));
  await chmod(dir, 0o755);
  return dir;
}

/**
 * Starts a service entry point in a process of its own (the benchmark's load and measurements do not share
 * its event loop) over an embedded PostgreSQL in `dataDir`, and resolves once it logs "caption service ready".
 * Its output goes straight to a log file, which is read only while someone waits for a line: a service
 * logging every request costs the benchmark's process nothing. Its stdin stays open while the benchmark runs.
 */
export async function startServiceProcess(options: ServiceOptions): Promise<ServiceProcess> {
  const logFile = path.join(options.dataDir, "service.log");
  const fd = openSync(logFile, "a");
  const env = { ...process.env, DATA_DIR: options.dataDir, PORT: "0", HOST: "127.0.0.1", METRICS_PORT: "0", DATABASE_URL: "", ...options.env };
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), path.join(REPO_ROOT, options.entry)], { cwd: REPO_ROOT, env, stdio: ["pipe", fd, fd] });
  closeSync(fd);
  const exited = once(child, "exit");
  const log = followLog(logFile);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    // PostgreSQL may still be finishing its shutdown checkpoint; it removes its pid file last.
    const pidFile = path.join(options.dataDir, "postgres", "postmaster.pid");
    for (let waited = 0; existsSync(pidFile) && waited < POSTGRES_STOP_TIMEOUT_MS; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    log.close();
  };

  let timer: NodeJS.Timeout | undefined;
  const ready = await Promise.race([
    log.waitForLine((entry) => entry.msg === "caption service ready" && typeof entry.url === "string"),
    exited.then(async ([code]) => {
      const output = await readFile(logFile, "utf8").catch(() => "");
      throw new Error(`${options.entry} exited with ${code} before it was ready; see ${logFile}:\n${output.slice(-3000)}`);
    }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${options.entry} was not ready within ${READY_TIMEOUT_MS / 1000} s; see ${logFile}`)), READY_TIMEOUT_MS);
    }),
  ])
    .catch(async (error: unknown) => {
      await stop();
      throw error;
    })
    .finally(() => clearTimeout(timer));

  const { url: databaseUrl } = await startEmbeddedPostgres(options.dataDir, createCliLogger("warn"));
  return { url: ready.url as string, databaseUrl, pid: child.pid ?? 0, logFile, waitForLine: log.waitForLine, stop };
}

/** The JSON lines of a growing log file, read every LOG_POLL_MS while a wait for one is pending; close() drops the waits. */
function followLog(file: string): { waitForLine(match: (entry: LogEntry) => boolean): Promise<LogEntry>; close(): void } {
  const entries: LogEntry[] = [];
  const waiters = new Set<{ match: (entry: LogEntry) => boolean; resolve: (entry: LogEntry) => void }>();
  let offset = 0;
  let partial = "";
  let timer: NodeJS.Timeout | undefined;

  const readNew = async () => {
    const handle = await open(file, "r");
    try {
      const { size } = await handle.stat();
      if (size <= offset) return;
      const buffer = Buffer.alloc(size - offset);
      await handle.read(buffer, 0, buffer.length, offset);
      offset = size;
      const lines = (partial + buffer.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        const entry = parseLogLine(line);
        if (!entry) continue;
        entries.push(entry);
        for (const waiter of waiters) {
          if (!waiter.match(entry)) continue;
          waiters.delete(waiter);
          waiter.resolve(entry);
        }
      }
    } finally {
      await handle.close();
    }
  };
  const poll = () => {
    timer = setTimeout(() => {
      readNew()
        .catch(() => undefined)
        .finally(() => (waiters.size > 0 ? poll() : (timer = undefined)));
    }, LOG_POLL_MS);
  };

  return {
    waitForLine(match) {
      const found = entries.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => {
        waiters.add({ match, resolve });
        if (timer === undefined) poll();
      });
    },
    close() {
      waiters.clear();
      clearTimeout(timer);
    },
  };
}

function parseLogLine(line: string): LogEntry | null {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null ? (value as LogEntry) : null;
  } catch {
    return null;
  }
}
