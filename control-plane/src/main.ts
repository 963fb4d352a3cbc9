// `npm run api`: the control plane alone (distributed mode; workers run elsewhere).
import { parseEnv } from "@caption/shared/config/env";
import { startTelemetry } from "@caption/shared/telemetry/telemetry";
import { telemetryOptionsFromEnv } from "@caption/shared/telemetry/telemetry-env";
import { startApiServer } from "./api-server.ts";
import { locateDatabase } from "./db/connect.ts";
import { createLogger } from "./logger.ts";

const env = parseEnv();
const logger = createLogger(env.LOG_LEVEL, "caption-api");
const telemetry = startTelemetry(telemetryOptionsFromEnv(env, "caption-api"));
const database = await locateDatabase(env, logger);
const api = await startApiServer(env, database.url, logger);

let signals = 0;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (++signals > 1) process.exit(1);
    logger.info({ signal }, "shutting down");
    api
      .stop()
      .then(() => database.stop())
      .then(() => telemetry.shutdown())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
  });
}
