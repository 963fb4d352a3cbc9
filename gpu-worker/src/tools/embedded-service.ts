import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { execa } from "execa";

const REPO_ROOT = path.resolve(import.meta.dirname, "..", "..", "..");
const READY_TIMEOUT_MS = 180_000;

/**
 * The whole service as `npm start` runs it (embedded PostgreSQL, the API, a worker) in a process of its own
 * over a fresh data folder, with an API key made by `npm run admin`; stopped and removed after `run`.
 */
export async function withEmbeddedService<T>(
  run: (service: { url: string; apiKey: string }) => Promise<T>,
  onLine: (line: string) => void = () => undefined,
): Promise<T> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "caption-embedded-"));
  // Run as root, the embedded PostgreSQL initialises its cluster in it as its own user.
  await chmod(dataDir, 0o755);
  const env = { ...process.env, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", METRICS_PORT: "0", LOG_LEVEL: "info" };
  const child = spawn(process.execPath, ["--import", "./shared/src/telemetry/register.ts", "scripts/embedded.ts"], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const exited = once(child, "exit");
  const tail: string[] = [];
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the embedded service was not ready within ${READY_TIMEOUT_MS / 1000} s:\n${tail.join("\n")}`)), READY_TIMEOUT_MS);
      const lines = createInterface({ input: child.stdout });
      lines.on("line", (line) => {
        tail.push(line);
        if (tail.length > 40) tail.shift();
        onLine(line);
        const entry = parse(line);
        if (entry?.msg === "caption service ready" && typeof entry.url === "string") {
          clearTimeout(timer);
          resolve(entry.url);
        }
      });
      child.stderr.on("data", (chunk: Buffer) => tail.push(chunk.toString("utf8")));
      void exited.then(([code]) => {
        clearTimeout(timer);
        reject(new Error(`the embedded service exited with ${String(code)} before it was ready:\n${tail.join("\n")}`));
      });
    });
    const created = await execa(process.execPath, ["control-plane/src/cli/admin.ts", "keys:create", "--name", "presets-sheet", "--scopes", "subtitles:write", "--credits", "0"], { cwd: REPO_ROOT, env });
    const { api_key: apiKey } = JSON.parse(created.stdout) as { api_key: string };
    return await run({ url, apiKey });
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}

function parse(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
