import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";

export type LogEntry = Record<string, unknown> & { msg?: string; level?: number };

/** One of the service's entry points (`npm run api`, `npm run worker`, `npm start`) in a child process. */
export interface ServiceProcess {
  child: ChildProcess;
  /** Its JSON log lines so far. */
  lines: LogEntry[];
  /** What it wrote to stderr (an uncaught error's stack lands there). */
  stderr(): string;
  /** The first log line, past or future, that `match` accepts; rejects if the process exits first or after `timeoutMs`. */
  waitForLine(match: (entry: LogEntry) => boolean, timeoutMs?: number): Promise<LogEntry>;
  /** Resolves with the exit code (or signal) once it has exited. */
  exited: Promise<number | NodeJS.Signals>;
  running(): boolean;
  /** SIGTERM, and SIGKILL if it has not exited within 20 s; resolves with how it exited. */
  stop(): Promise<number | NodeJS.Signals>;
}

export const ENTRY_POINTS = { api: "control-plane/src/cli/api.ts", worker: "gpu-worker/src/cli/worker.ts", embedded: "scripts/embedded.ts" } as const;

export function spawnService(entry: keyof typeof ENTRY_POINTS, env: Record<string, string>, options: { detached?: boolean } = {}): ServiceProcess {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: "0", HOST: "127.0.0.1", METRICS_PORT: "0", LOG_LEVEL: "info", ...env };
  // Not a test file: keep it from reporting to this test runner.
  delete childEnv.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, [path.join(REPO_ROOT, ENTRY_POINTS[entry])], { cwd: REPO_ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"], detached: options.detached });
  const lines: LogEntry[] = [];
  const listeners = new Set<(entry: LogEntry) => void>();
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // Read to the end, so a full pipe never blocks the process.
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    let entry: LogEntry;
    try {
      entry = JSON.parse(line) as LogEntry;
    } catch {
      return;
    }
    lines.push(entry);
    for (const listener of listeners) listener(entry);
  });
  // "close": exited and its output read to the end.
  const exited = once(child, "close").then(([code, signal]) => (code ?? signal) as number | NodeJS.Signals);
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
          reject(new Error(`${describe()}: no such log line within ${timeoutMs} ms; last lines:\n${tail(lines)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(listener);
        };
        listeners.add(listener);
        void exited.then((code) => {
          if (!listeners.has(listener)) return;
          done();
          reject(new Error(`${describe()} exited with ${code} before the log line; last lines:\n${tail(lines)}\n${stderr}`));
        });
      });
    },
    exited,
    running: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}

function tail(lines: LogEntry[]): string {
  return lines.slice(-8).map((entry) => JSON.stringify(entry)).join("\n");
}
