import type Router from "@koa/router";
import { PROMETHEUS_CONTENT_TYPE, type Telemetry } from "@caption/shared/telemetry/telemetry";
import type { AppState } from "../app-state.ts";

/** `GET /metrics`: the Prometheus text exposition, without a key, like the health endpoints. */
export function metricsRoute(router: Router<AppState>, telemetry: Pick<Telemetry, "prometheusText">): void {
  router.get("/metrics", async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.type = PROMETHEUS_CONTENT_TYPE;
    ctx.body = await telemetry.prometheusText();
  });
}
