import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import { REPO_ROOT } from "../repo-root.ts";

const READY_TIMEOUT_MS = 120_000;

/**
 * A worker (`npm run worker`) in a process of its own over the benchmark's database, as a distributed
 * deployment runs it beside the API: resolves once it has registered. `stop` ends it with SIGTERM.
 */
export async function startWorkerProcess(databaseUrl: string, dataDir: string): Promise<{ pid: number; stop(): Promise<void> }> {
  await mkdir(dataDir, { recursive: true });
  const child = spawn(process.execPath, ["--import", "./shared/src/telemetry/register.ts", "gpu-worker/src/cli/worker.ts"], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, METRICS_PORT: "0", LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = once(child, "exit");
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await exited;
  };
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const started = Date.now(); ; await delay(250)) {
      if (child.exitCode !== null) throw new Error(`the worker exited with ${child.exitCode} before it registered`);
      const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM workers");
      if (Number(rows[0]?.n) > 0) break;
      if (Date.now() - started > READY_TIMEOUT_MS) throw new Error(`the worker did not register within ${READY_TIMEOUT_MS / 1000} s`);
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    await client.end();
  }
  return { pid: child.pid ?? 0, stop };
}
