// `npm start`: the whole service in one process — embedded PostgreSQL under DATA_DIR, the API, and
// a worker — on the same code paths as the distributed mode.
import pino from "pino";
import { parseEnv } from "@caption/shared/config/env";
import { startApiServer } from "../control-plane/src/api-server.ts";
import { startEmbeddedPostgres } from "../control-plane/src/db/embedded-postgres.ts";
import { startCaptionWorker } from "../gpu-worker/src/runtime/caption-worker.ts";
import { onShutdownSignals } from "../gpu-worker/src/runtime/shutdown.ts";

const env = parseEnv();
const logger = pino({ level: env.LOG_LEVEL, base: { service: "caption-service" }, timestamp: pino.stdTimeFunctions.isoTime });
const postgres = env.DATABASE_URL ? null : await startEmbeddedPostgres(env.DATA_DIR, logger);
const databaseUrl = env.DATABASE_URL ?? postgres?.url ?? "";
const api = await startApiServer(env, databaseUrl, logger);
const worker = await startCaptionWorker(env, databaseUrl, logger);
logger.info({ url: api.url, data_dir: env.DATA_DIR }, "caption service ready");

const stop = (graceSeconds?: number) => async () => {
  await api.stop();
  await worker.stop(graceSeconds === undefined ? {} : { graceSeconds });
  await postgres?.stop();
};
onShutdownSignals(logger, stop(), stop(0));
