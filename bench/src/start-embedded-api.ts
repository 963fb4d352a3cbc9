import { fork } from "node:child_process";
import { once } from "node:events";
import { closeSync, existsSync, openSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { EmbeddedApiReady } from "./api/api-process.ts";

export interface EmbeddedApi extends EmbeddedApiReady {
  /** The service's own log (JSON lines), kept out of the load generator's process. */
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Starts the API in a process of its own so that the load generator does not share its event
 * loop. `nodeArgs` go to that process (e.g. --cpu-prof).
 */
export async function startEmbeddedApi(options: { dataDir: string; logLevel: string; nodeArgs?: string[] }): Promise<EmbeddedApi> {
  const logFile = path.join(options.dataDir, "api.log");
  const log = openSync(logFile, "a");
  const child = fork(path.join(import.meta.dirname, "api", "api-process.ts"), [], {
    env: { ...process.env, DATA_DIR: options.dataDir, LOG_LEVEL: options.logLevel, DATABASE_URL: "" },
    execArgv: [...process.execArgv, ...(options.nodeArgs ?? [])],
    stdio: ["ignore", log, log, "ipc"],
  });
  closeSync(log);
  const exited = once(child, "exit");
  const ready = await Promise.race([
    once(child, "message").then(([message]) => message as EmbeddedApiReady),
    exited.then(async ([code]) => {
      const log = await readFile(logFile, "utf8").catch(() => "");
      throw new Error(`the API exited with ${code} before it was ready:\n${log.slice(-3000)}`);
    }),
  ]);
  return {
    ...ready,
    logFile,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(timer);
      // PostgreSQL may still be finishing its shutdown checkpoint; it removes its pid file last.
      const pidFile = path.join(options.dataDir, "postgres", "postmaster.pid");
      for (let waited = 0; existsSync(pidFile) && waited < 30_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    },
  };
}
