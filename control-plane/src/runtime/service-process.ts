import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { closeSync, fstatSync, openSync } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";

/** The repository root, found from this file's place in control-plane/src/runtime. */
const REPO_ROOT = path.join(import.meta.dirname, "..", "..", "..");
const LOG_POLL_MS = 100;

export type LogEntry = Record<string, unknown> & { msg?: string; level?: number };

/** The service's entry points, as `npm run api`, `npm run worker` and `npm start` run them. */
export const ENTRY_POINTS = { api: "control-plane/src/cli/api.ts", worker: "gpu-worker/src/cli/worker.ts", embedded: "scripts/embedded.ts" } as const;

/** One of ENTRY_POINTS, or another script by its path (from the repository root, or absolute). */
export type ServiceEntry = keyof typeof ENTRY_POINTS | `${string}.ts`;

export interface SpawnServiceOptions {
  /** Its own process group (to kill it with all it started). */
  detached?: boolean;
  /** Node flags for its process (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** Arguments after the script (e.g. the embedded entry point's --attached). */
  args?: string[];
  /**
   * Its stdout and stderr go straight to this file, read only while someone waits for a line: a service
   * logging every request then costs the caller's process nothing. Otherwise they are piped and read as they come.
   */
  logFile?: string;
  /** "pipe" keeps its stdin open while the caller runs (a process may stop when it ends). Default "ignore". */
  stdin?: "pipe" | "ignore";
  /** How long stop() waits after SIGTERM before SIGKILL. Default 20 s. */
  killAfterMs?: number;
}

/** A service entry point in a child process of its own. */
export interface ServiceProcess {
  child: ChildProcess;
  /** Its JSON log lines read so far. */
  lines: LogEntry[];
  /** What it wrote to stderr (an uncaught error's stack lands there); with a log file, its lines that are not JSON. */
  stderr(): string;
  /** The first log line, past or future, that `match` accepts; rejects if the process exits first or after `timeoutMs`. */
  waitForLine(match: (entry: LogEntry) => boolean, timeoutMs?: number): Promise<LogEntry>;
  /** Resolves with the exit code (or signal) once it has exited and its output has been read. */
  exited: Promise<number | NodeJS.Signals>;
  running(): boolean;
  /** SIGTERM, and SIGKILL if it has not exited in time; resolves with how it exited. */
  stop(): Promise<number | NodeJS.Signals>;
}

export function spawnService(entry: ServiceEntry, env: Record<string, string>, options: SpawnServiceOptions = {}): ServiceProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: "0", HOST: "127.0.0.1", METRICS_PORT: "0", LOG_LEVEL: "info", ...env };
  // Not a test file: keep it from reporting to this test runner.
  delete childEnv.NODE_TEST_CONTEXT;
  const script = path.resolve(REPO_ROOT, entry in ENTRY_POINTS ? ENTRY_POINTS[entry as keyof typeof ENTRY_POINTS] : entry);
  const fd = options.logFile === undefined ? null : openSync(options.logFile, "a");
  // A log file kept from earlier runs (DATA_DIR/service.log) is read from where this run starts writing.
  const logStart = fd === null ? 0 : fstatSync(fd).size;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: childEnv,
    stdio: [options.stdin ?? "ignore", fd ?? "pipe", fd ?? "pipe"],
    detached: options.detached,
  });
  if (fd !== null) closeSync(fd);

  const lines: LogEntry[] = [];
  const listeners = new Set<(entry: LogEntry) => void>();
  let stderr = "";
  const accept = (line: string) => {
    const entry = parseLogLine(line);
    if (entry === null) {
      if (fd !== null && line !== "") stderr += `${line}\n`;
      return;
    }
    lines.push(entry);
    for (const listener of listeners) listener(entry);
  };
  let follower: FileFollower | null = null;
  if (options.logFile === undefined) {
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // Read to the end, so a full pipe never blocks the process.
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", accept);
  } else {
    follower = followFile(options.logFile, logStart, accept, () => listeners.size > 0);
  }
  // "close": exited and its output read to the end (from the file too).
  const exited = once(child, "close").then(async ([code, signal]) => {
    await follower?.readNew();
    return (code ?? signal) as number | NodeJS.Signals;
  });
  const describe = () => `${entry} (pid ${child.pid})`;

  return {
    child,
    lines,
    stderr: () => stderr,
    waitForLine(match, timeoutMs = 120_000) {
      const found = lines.find(match);
      if (found) return Promise.resolve(found);
      return new Promise<LogEntry>((resolve, reject) => {
        const listener = (entry: LogEntry) => {
          if (!match(entry)) return;
          done();
          resolve(entry);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${describe()}: no such log line within ${timeoutMs} ms; last lines:\n${tail(lines)}${logFileHint(options)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(listener);
        };
        listeners.add(listener);
        follower?.wake();
        void exited.then((code) => {
          if (!listeners.has(listener)) return;
          done();
          reject(new Error(`${describe()} exited with ${code} before the log line; last lines:\n${tail(lines)}\n${stderr.slice(-3000)}${logFileHint(options)}`));
        });
      });
    },
    exited,
    running: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), options.killAfterMs ?? 20_000);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}

interface FileFollower {
  /** Starts polling, if it is not already, for as long as `wanted()` says. */
  wake(): void;
  /** Reads what the file has gained since the last read. */
  readNew(): Promise<void>;
}

/** The lines of a growing file, read every LOG_POLL_MS while `wanted()`. */
function followFile(file: string, start: number, onLine: (line: string) => void, wanted: () => boolean): FileFollower {
  let offset = start;
  let partial = "";
  let timer: NodeJS.Timeout | undefined;
  // One read at a time: a poll and the read at exit must not both take the same bytes.
  let reading: Promise<void> = Promise.resolve();
  const readNew = () => (reading = reading.then(readOnce).catch(() => undefined));
  const readOnce = async () => {
    const handle = await open(file, "r");
    try {
      const { size } = await handle.stat();
      if (size <= offset) return;
      const buffer = Buffer.alloc(size - offset);
      await handle.read(buffer, 0, buffer.length, offset);
      offset = size;
      const lines = (partial + buffer.toString("utf8")).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) onLine(line);
    } finally {
      await handle.close();
    }
  };
  const poll = () => {
    timer = setTimeout(() => {
      void readNew().finally(() => (wanted() ? poll() : (timer = undefined)));
    }, LOG_POLL_MS);
  };
  return {
    wake: () => {
      if (timer === undefined) poll();
    },
    readNew,
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

function tail(lines: LogEntry[]): string {
  return lines.slice(-8).map((entry) => JSON.stringify(entry)).join("\n");
}

function logFileHint(options: SpawnServiceOptions): string {
  return options.logFile === undefined ? "" : `\nsee ${options.logFile}`;
}
