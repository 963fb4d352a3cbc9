// `npm run api`: the control plane alone (distributed mode; workers run elsewhere).
import { parseEnv } from "@caption/shared/config/env";
import { createLogger } from "@caption/shared/runtime/logger";
import { exitOnStartupFailure } from "@caption/shared/runtime/startup-failure";
import { onShutdownSignals } from "@caption/shared/runtime/shutdown-signals";
import { startTelemetry } from "@caption/shared/telemetry/telemetry";
import { telemetryOptionsFromEnv } from "@caption/shared/telemetry/telemetry-env";
import { startApiServer } from "../runtime/api-server.ts";
import { locateDatabase } from "../db/connect.ts";

const env = parseEnv();
const logger = createLogger(env.LOG_LEVEL, "caption-api");
const telemetry = startTelemetry(telemetryOptionsFromEnv(env, "caption-api"));
const database = await locateDatabase(env, logger).catch(exitOnStartupFailure(logger));
const api = await startApiServer(env, database.url, logger).catch(exitOnStartupFailure(logger));

onShutdownSignals(
  logger,
  async () => {
    await api.stop();
    await database.stop();
    await telemetry.shutdown();
  },
  async () => process.exit(1),
);
