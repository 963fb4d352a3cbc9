import { randomUUID } from "node:crypto";
import type { Middleware } from "koa";
import type { Logger } from "pino";
import type { AppState } from "../app-state.ts";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id (kept from a sane incoming X-Request-Id), a child logger and one access log line. */
export function requestContext(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get("X-Request-Id");
    const requestId = REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID()}`;
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ request_id: requestId });
    ctx.set("X-Request-Id", requestId);
    const started = performance.now();
    await next();
    const level = ctx.status === 503 ? "warn" : ctx.status >= 500 ? "error" : "info";
    ctx.state.log[level]({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) }, "request");
  };
}
