import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { parseEnv } from "@caption/shared/config/env";
import { apiRequest, type ApiRequestOptions, type ApiResponse } from "./api-request.ts";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { startApiServer, type ApiServer, type ApiServerOptions } from "../runtime/api-server.ts";
import { createKey, type CreateKeyInput } from "../services/account-admin.ts";

export interface TestApi {
  url: string;
  database: TestDatabase;
  api: ApiServer;
  dataDir: string;
  /** Creates an account + key (write scope and 600 s unless told otherwise). */
  createKey(input?: Partial<CreateKeyInput>): Promise<{ api_key: string; account_id: string; key_prefix: string }>;
  request(method: string, path: string, options?: ApiRequestOptions): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface TestApiOptions extends Pick<ApiServerOptions, "now" | "webhookSweepMs" | "webhookRequeueMs" | "dns" | "routes" | "rateRefusals" | "identityNonce"> {
  /** Another test API's database: a second API process over it, as in a scaled-out deployment (closing this API leaves it). */
  database?: TestDatabase;
}

/** A real API server on loopback over a fresh database of its own (or `options.database`); `now` replaces its clock. */
export async function startTestApi(envOverrides: Record<string, string> = {}, options: TestApiOptions = {}): Promise<TestApi> {
  const database = options.database ?? (await createTestDatabase());
  const dataDir = await mkdtemp(path.join(tmpdir(), "caption-api-"));
  const env = parseEnv({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "silent", ...envOverrides });
  const { database: _shared, ...serverOptions } = options;
  const api = await startApiServer(env, database.url, pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }), { metrics: { port: 0, host: "127.0.0.1" }, ...serverOptions });
  return {
    url: api.url,
    database,
    api,
    dataDir,
    createKey: (input = {}) => createKey(database.db, { name: "test", scopes: ["subtitles:write"], credits: 600, ...input }),
    request: (method, requestPath, options) => apiRequest(api.url, method, requestPath, options),
    async close() {
      await api.stop();
      if (!options.database) await database.dispose();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
