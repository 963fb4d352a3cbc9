// `npm run worker`: a caption worker (distributed mode) over DATABASE_URL; `npm start` runs one inside the embedded service instead.
import path from "node:path";
import { parseEnv } from "@caption/shared/config/env";
import { createLogger } from "@caption/shared/runtime/logger";
import { exitOnStartupFailure } from "@caption/shared/runtime/startup-failure";
import { onShutdownSignals } from "@caption/shared/runtime/shutdown-signals";
import { metricsListenAt, startMetricsServer } from "@caption/shared/telemetry/metrics-server";
import { startTelemetry } from "@caption/shared/telemetry/telemetry";
import { telemetryOptionsFromEnv } from "@caption/shared/telemetry/telemetry-env";
import { startCaptionWorker } from "../runtime/caption-worker.ts";

const env = parseEnv();
const logger = createLogger(env.LOG_LEVEL, "caption-worker");
const databaseUrl = env.DATABASE_URL;
if (!databaseUrl) {
  logger.fatal({ data_dir: path.resolve(env.DATA_DIR) }, "DATABASE_URL is required for a standalone worker; `npm start` runs a worker inside the embedded service");
  process.exit(2);
}
const telemetry = startTelemetry(telemetryOptionsFromEnv(env, "caption-worker"));
const metricsAt = metricsListenAt(env);
const metricsServer = metricsAt ? await startMetricsServer(telemetry, metricsAt) : undefined;
if (metricsServer) logger.info({ url: metricsServer.url }, "metrics listening");
const worker = await startCaptionWorker(env, databaseUrl, logger).catch(exitOnStartupFailure(logger));
const stop = (graceSeconds?: number) => async () => {
  await worker.stop(graceSeconds === undefined ? {} : { graceSeconds });
  await metricsServer?.close();
  await telemetry.shutdown();
};
onShutdownSignals(logger, stop(), stop(0));
