// Child process of the API benchmark: the control plane alone (no worker) over an embedded
// PostgreSQL in a given DATA_DIR. Reports { url, databaseUrl } over IPC; stops on SIGTERM.
import { parseEnv } from "@caption/shared/config/env";
import { startApiServer } from "../../../control-plane/src/api-server.ts";
import { startEmbeddedPostgres } from "../../../control-plane/src/db/embedded-postgres.ts";
import { createLogger } from "@caption/shared/runtime/logger";

export interface EmbeddedApiReady { url: string; databaseUrl: string }

const env = parseEnv({ ...process.env, PORT: "0", HOST: "127.0.0.1" });
const logger = createLogger(env.LOG_LEVEL, "caption-api");
const postgres = await startEmbeddedPostgres(env.DATA_DIR, logger);
const api = await startApiServer(env, postgres.url, logger);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  // A normal exit, so that --cpu-prof writes its profile.
  api.stop().then(() => postgres.stop()).then(() => process.exit(0), (error: unknown) => {
    logger.error({ err: error }, "benchmark API shutdown failed");
    process.exit(1);
  });
};
process.on("SIGTERM", stop);
process.on("disconnect", stop);
process.send?.({ url: api.url, databaseUrl: postgres.url } satisfies EmbeddedApiReady);
