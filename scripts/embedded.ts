// `npm start`: the whole service in one process — embedded PostgreSQL under DATA_DIR (unless
// DATABASE_URL is set), the API, and a worker — on the same code paths as the distributed mode.
import { parseEnv } from "@caption/shared/config/env";
import { createLogger } from "@caption/shared/runtime/logger";
import { exitOnStartupFailure } from "@caption/shared/runtime/startup-failure";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { onShutdownSignals } from "@caption/shared/runtime/shutdown-signals";
import { startTelemetry } from "@caption/shared/telemetry/telemetry";
import { telemetryOptionsFromEnv } from "@caption/shared/telemetry/telemetry-env";
import { advertiseService, newServiceNonce, startApiServer, locateDatabase } from "@caption/control-plane";
import { startCaptionWorker } from "@caption/gpu-worker";

// --attached: run for one client (the caption command): stop when its stdin closes (the client is gone, even
// killed), and stay unadvertised, so no other client joins a service that stops with its owner.
const options = parseCommandLine({ options: { attached: { type: "boolean" }, help: { type: "boolean", short: "h" } } }, "usage: npm start [-- --attached]");
if (typeof options === "number") process.exit(options);
const env = parseEnv();
const logger = createLogger(env.LOG_LEVEL, "caption-service");
// One process, one telemetry: the API's /metrics covers the worker too.
const telemetry = startTelemetry(telemetryOptionsFromEnv(env, "caption-service"));
const failed = exitOnStartupFailure(logger);
const database = await locateDatabase(env, logger).catch(failed);
// With DATABASE_URL both wait for the database (the API first, serving /healthz meanwhile).
// What binds a client's idea of this service to this process: /readyz proves it holds it (service.json carries it;
// the caption command passes its own for the service it starts).
const nonce = env.SERVICE_NONCE ?? newServiceNonce();
const api = await startApiServer(env, database.url, logger, { identityNonce: nonce }).catch(failed);
const worker = await startCaptionWorker(env, database.url, logger).catch(failed);
// Written before "ready": a caption command started after that line finds the service to join.
const unadvertise = options.attached ? async () => {} : await advertiseService(env.DATA_DIR, api.url, nonce).catch(failed);
logger.info({ url: api.url, data_dir: env.DATA_DIR }, "caption service ready");

// The database stops last, after the worker has handed back what it could not finish.
const stop = (graceSeconds?: number) => async () => {
  await unadvertise();
  await api.stop();
  await worker.stop(graceSeconds === undefined ? {} : { graceSeconds });
  await database.stop();
  await telemetry.shutdown();
};
onShutdownSignals(logger, stop(), stop(0));
if (options.attached) {
  process.stdin.on("close", () => process.kill(process.pid, "SIGTERM"));
  process.stdin.resume();
}
