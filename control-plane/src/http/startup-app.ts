import Koa from "koa";
import type { Logger } from "pino";
import { serviceUnavailable } from "../services/service-error.ts";
import type { AppState } from "./app-state.ts";
import { errorResponse } from "./middleware/error-response.ts";
import { noSniff } from "./middleware/no-sniff.ts";
import { requestContext } from "./middleware/request-context.ts";

/**
 * What the API answers while it waits for the database at start-up: alive (`/healthz` 200), not
 * ready (`/readyz` 503), and 503 SERVICE_UNAVAILABLE with Retry-After for everything else — so an
 * orchestrator keeps the process and sends it no traffic instead of restarting it in a loop.
 */
export function createStartupApp(logger: Logger, options: { trustProxy: boolean }): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: options.trustProxy });
  app.use(requestContext(logger));
  app.use(errorResponse());
  app.use(noSniff());
  app.use((ctx) => {
    if (ctx.method !== "GET" && ctx.method !== "HEAD") throw serviceUnavailable();
    if (ctx.path === "/healthz") {
      ctx.body = { status: "ok" };
    } else if (ctx.path === "/readyz") {
      ctx.status = 503;
      ctx.body = { status: "waiting for the database" };
    } else {
      throw serviceUnavailable();
    }
  });
  return app;
}
