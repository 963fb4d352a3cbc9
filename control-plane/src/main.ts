// `npm run api`: the control plane alone (distributed mode; workers run elsewhere).
import { parseEnv } from "@caption/shared/config/env";
import { startApiServer } from "./api-server.ts";
import { createLogger } from "./logger.ts";
import { connectDatabase } from "./db/connect.ts";

const env = parseEnv();
const logger = createLogger(env.LOG_LEVEL, "caption-api");
const connection = await connectDatabase(env, logger);
const api = await startApiServer(env, connection.url, logger);

let signals = 0;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (++signals > 1) process.exit(1);
    logger.info({ signal }, "shutting down");
    api.stop().then(() => connection.close()).then(() => process.exit(0), (error: unknown) => {
      logger.error({ err: error }, "shutdown failed");
      process.exit(1);
    });
  });
}
