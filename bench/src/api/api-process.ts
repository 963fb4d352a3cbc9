// Entry point of the API benchmark's service process (started by startEmbeddedService, from
// @caption/control-plane/testing, with the same `--import` of the telemetry preload as `npm run api`): the
// control plane alone (no worker) with telemetry as `npm run api` starts it, over an embedded PostgreSQL in
// DATA_DIR. Stops on SIGTERM, or when the benchmark that holds its stdin open goes away.
import { appendFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseEnv } from "@caption/shared/config/env";
import { createLogger } from "@caption/shared/runtime/logger";
import { startTelemetry } from "@caption/shared/telemetry/telemetry";
import { telemetryOptionsFromEnv } from "@caption/shared/telemetry/telemetry-env";
import { startApiServer, startEmbeddedPostgres } from "@caption/control-plane";

const env = parseEnv();
const logger = createLogger(env.LOG_LEVEL, "caption-api");
const telemetry = startTelemetry(telemetryOptionsFromEnv(env, "caption-api"));
const postgres = await startEmbeddedPostgres(env.DATA_DIR, logger);
const api = await startApiServer(env, postgres.url, logger);

// BENCH_LOOP_DELAY_FILE: one JSON line a second with the event loop's delay over that second (ms), so a
// benchmark can tell the API's own stalls from time spent waiting elsewhere.
const loopDelayFile = process.env.BENCH_LOOP_DELAY_FILE;
if (loopDelayFile) {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  setInterval(() => {
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    appendFileSync(loopDelayFile, `${JSON.stringify({ at: Date.now(), p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) })}\n`);
    delay.reset();
  }, 1000).unref();
}

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  // A normal exit, so that --cpu-prof writes its profile.
  api.stop().then(() => postgres.stop()).then(() => telemetry.shutdown()).then(() => process.exit(0), (error: unknown) => {
    logger.error({ err: error }, "benchmark API shutdown failed");
    process.exit(1);
  });
};
process.on("SIGTERM", stop);
process.stdin.on("end", stop).resume();
// Whatever LOG_LEVEL says: the benchmark waits for this line.
logger.child({}, { level: "info" }).info({ url: api.url, data_dir: env.DATA_DIR }, "caption service ready");
