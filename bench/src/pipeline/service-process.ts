import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Job } from "@caption/shared/api/job";
import type { StageName } from "@caption/shared/telemetry/caption-metrics";
import { REPO_ROOT } from "@caption/test/fixtures/repo-paths";
import { apiRequest } from "../../../control-plane/src/testing/api-request.ts";
const READY_TIMEOUT_MS = 120_000;

export interface CompletedJobLog {
  /** From the worker's "job completed" line: what each stage took, in milliseconds. */
  stageMs: Partial<Record<StageName, number>>;
  framesDrawn: number;
}

export interface ServiceProcess {
  url: string;
  /** The speech engine the worker loaded ("speech engine ready"). */
  engine: string;
  pid: number;
  logFile: string;
  /** The admin CLI, as an operator would run it against this service's DATA_DIR. */
  createKey(credits: number): Promise<string>;
  submit(key: string, body: unknown): Promise<string>;
  /** Polls until the job is terminal (every 250 ms, as a brisk client would). */
  waitForJob(key: string, id: string, onProgress?: (percent: number) => void): Promise<Job>;
  /** The worker's completion log line of a job, once written. */
  completionOf(jobId: string): Promise<CompletedJobLog>;
  stop(): Promise<void>;
}

/**
 * The service exactly as `npm start` runs it (scripts/embedded.ts: embedded PostgreSQL, API and worker in
 * one process), in a child process whose JSON log the bench reads for stage timings.
 */
export async function startServiceProcess(options: { dataDir: string; env: Record<string, string> }): Promise<ServiceProcess> {
  const logFile = path.join(options.dataDir, "service.log");
  const env = { ...process.env, DATA_DIR: options.dataDir, PORT: "0", HOST: "127.0.0.1", METRICS_PORT: "0", LOG_LEVEL: "info", DATABASE_URL: "", ...options.env };
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "scripts/embedded.ts")], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const log = createWriteStream(logFile);
  child.stderr.pipe(log);
  const completions = new Map<string, CompletedJobLog>();
  const waiters = new Map<string, (log: CompletedJobLog) => void>();
  let engine = "unknown";
  let announceReady: (url: string) => void = () => undefined;
  const ready = new Promise<string>((resolve) => (announceReady = resolve));
  createInterface({ input: child.stdout }).on("line", (line) => {
    log.write(`${line}\n`);
    const entry = parseLogLine(line);
    if (!entry) return;
    if (entry.msg === "caption service ready" && typeof entry.url === "string") announceReady(entry.url);
    if (entry.msg === "speech engine ready" && typeof entry.engine === "string") engine = entry.engine;
    if (entry.msg === "job completed" && typeof entry.job_id === "string") {
      const completion = { stageMs: (entry.stage_ms ?? {}) as CompletedJobLog["stageMs"], framesDrawn: Number(entry.frames_drawn ?? 0) };
      completions.set(entry.job_id, completion);
      waiters.get(entry.job_id)?.(completion);
    }
  });
  const exited = once(child, "exit");
  const baseUrl = await Promise.race([
    ready,
    exited.then(([code]) => Promise.reject(new Error(`the service exited with ${code} before it was ready; see ${logFile}`))),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the service was not ready within ${READY_TIMEOUT_MS / 1000} s; see ${logFile}`)), READY_TIMEOUT_MS).unref()),
  ]).catch(async (error: unknown) => {
    await stopChild(child, exited);
    throw error;
  });
  const call = (method: string, route: string, key: string, body?: unknown) => apiRequest(baseUrl, method, route, { key, body });

  return {
    url: baseUrl,
    get engine() {
      return engine;
    },
    pid: child.pid ?? 0,
    logFile,
    async createKey(credits) {
      const admin = spawn(process.execPath, [path.join(REPO_ROOT, "control-plane/src/cli/admin.ts"), "keys:create", "--name", "bench", "--scopes", "subtitles:write", "--credits", String(credits), "--concurrency", "4"], {
        cwd: REPO_ROOT,
        env: { ...env, LOG_LEVEL: "warn" },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let output = "";
      admin.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const [code] = await once(admin, "exit");
      if (code !== 0) throw new Error(`keys:create exited with ${code}`);
      return (JSON.parse(output) as { api_key: string }).api_key;
    },
    async submit(key, body) {
      const response = await call("POST", "/v1/subtitles", key, body);
      if (response.status !== 202 || typeof response.body.id !== "string") throw new Error(`submission refused: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body.id;
    },
    async waitForJob(key, id, onProgress) {
      for (;;) {
        const response = await call("GET", `/v1/jobs/${id}`, key);
        if (response.status !== 200) throw new Error(`GET /v1/jobs/${id} → ${response.status} ${JSON.stringify(response.body)}`);
        const job = response.body as Job;
        onProgress?.(job.progress);
        if (job.status === "completed" || job.status === "failed" || job.status === "canceled") return job;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    completionOf(jobId) {
      const known = completions.get(jobId);
      return known ? Promise.resolve(known) : new Promise((resolve) => waiters.set(jobId, resolve));
    },
    async stop() {
      await stopChild(child, exited);
      log.end();
    },
  };
}

function parseLogLine(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  await exited;
  clearTimeout(timer);
}
