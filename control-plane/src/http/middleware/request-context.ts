import { randomUUID } from "node:crypto";
import type { Middleware } from "koa";
import type { Logger } from "pino";
import { isDatabaseUnavailable } from "@caption/shared/db/database-errors";
import { ApiError, serviceUnavailable } from "../api-error.ts";
import type { AppState } from "../app-state.ts";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (kept from a sane incoming X-Request-Id), a child logger, one access
 * log line, and maps every error to the spec's error body. 5xx messages stay generic.
 */
export function requestContext(logger: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get("X-Request-Id");
    const requestId = REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID()}`;
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ request_id: requestId });
    ctx.set("X-Request-Id", requestId);
    const started = performance.now();
    try {
      await next();
    } catch (error) {
      const apiError = toApiError(error);
      // An outage answered with 503 is expected and logged as a warning; anything else 5xx is a defect.
      if (apiError.status === 503) ctx.state.log.warn({ cause: (error as Error).message }, "request failed: service unavailable");
      else if (apiError.status >= 500) ctx.state.log.error({ err: error }, "request failed");
      ctx.status = apiError.status;
      ctx.set(apiError.headers);
      ctx.body = { error: { code: apiError.code, message: apiError.message, request_id: requestId } };
    }
    const level = ctx.status === 503 ? "warn" : ctx.status >= 500 ? "error" : "info";
    ctx.state.log[level]({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) }, "request");
  };
}

const HTTP_CODES: Record<number, string> = { 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE", 416: "RANGE_NOT_SATISFIABLE" };

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  // Koa's body/HTTP errors carry a status; anything else is ours to hide.
  const status = (error as { status?: unknown }).status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return new ApiError(status, HTTP_CODES[status] ?? "INVALID_REQUEST", (error as Error).message);
  }
  if (isDatabaseUnavailable(error)) return serviceUnavailable();
  return new ApiError(500, "INTERNAL_ERROR", "internal error");
}
