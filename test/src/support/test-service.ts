import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pino, { type Logger } from "pino";
import { parseEnv, type Env } from "@caption/shared/config/env";
import type { Job } from "@caption/shared/api/job";
import { startApiServer, type ApiServer, createKey, type CreateKeyInput } from "@caption/control-plane";
import { startCaptionWorker, type CaptionWorker } from "@caption/gpu-worker";
import { apiRequest, type ApiResponse } from "@caption/control-plane/testing";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";

export interface TestService {
  url: string;
  env: Env;
  database: TestDatabase;
  dataDir: string;
  api: ApiServer;
  worker: CaptionWorker | null;
  createKey(input?: Partial<CreateKeyInput>): Promise<{ api_key: string; account_id: string }>;
  call(method: string, path: string, key?: string, body?: unknown): Promise<ApiResponse>;
  /** Polls the job (as a client would, but faster) until `done` holds or the timeout passes. */
  waitForJob(key: string, id: string, done?: (job: Job) => boolean, timeoutMs?: number): Promise<Job>;
  close(): Promise<void>;
}

const terminal = (job: Job) => job.status === "completed" || job.status === "failed" || job.status === "canceled";

/** The real API and (unless `worker: false`) a real worker, in this process, over a fresh database; their log goes to `logger` when given. */
export async function startTestService(options: { env?: Record<string, string>; worker?: boolean; logger?: Logger } = {}): Promise<TestService> {
  const database = await createTestDatabase();
  const dataDir = await mkdtemp(path.join(tmpdir(), "caption-e2e-"));
  // A test machine runs many suites at once: the processing deadline (tested on its own) must not
  // turn a slow shared CPU into failed jobs elsewhere.
  const env = parseEnv({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "silent", ALLOW_PRIVATE_VIDEO_URLS: "true", WORKER_CONCURRENCY: "2", PROCESSING_DEADLINE_BASE_SECONDS: "600", ...options.env });
  const logger = options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
  // A free port for the metrics listener, should a test run telemetry.
  const api = await startApiServer(env, database.url, logger, { metrics: { port: 0, host: "127.0.0.1" } });
  const worker = options.worker === false ? null : await startCaptionWorker(env, database.url, logger);
  const call: TestService["call"] = (method, requestPath, key, body) => apiRequest(api.url, method, requestPath, { key, body });
  return {
    url: api.url,
    env,
    database,
    dataDir,
    api,
    worker,
    createKey: (input = {}) => createKey(database.db, { name: "e2e", scopes: ["subtitles:write"], credits: 600, ...input }),
    call,
    async waitForJob(key, id, done = terminal, timeoutMs = 240_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const { status, body } = await call("GET", `/v1/jobs/${id}`, key);
        if (status !== 200) throw new Error(`GET /v1/jobs/${id} → ${status} ${JSON.stringify(body)}`);
        if (done(body)) return body;
        if (Date.now() > deadline) throw new Error(`job ${id} still ${body.status} (${body.progress}%) after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async close() {
      await api.stop();
      await worker?.stop({ graceSeconds: 0 });
      await database.dispose();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
