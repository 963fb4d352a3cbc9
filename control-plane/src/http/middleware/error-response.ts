import type { Middleware } from "koa";
import { isDatabaseUnavailable, refusedValue, type RefusedValue } from "@caption/shared/db/database-errors";
import type { ApiErrorCode } from "@caption/shared/errors/codes";
import { invalidRequest, ServiceError, serviceUnavailable } from "../../services/service-error.ts";
import type { AppState } from "../app-state.ts";

const STATUS: Record<ApiErrorCode, number> = {
  INVALID_REQUEST: 400,
  IDEMPOTENCY_KEY_MISMATCH: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_SCOPE: 401,
  INSUFFICIENT_CREDITS: 402,
  LINK_EXPIRED_OR_INVALID: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  SOURCE_NOT_RENDERABLE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  RATE_LIMITED: 429,
  CONCURRENCY_LIMIT_EXCEEDED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
  VIDEO_TOO_LARGE: 413,
  UPLOAD_INCOMPLETE: 409,
  UPLOAD_EXPIRED: 410,
  UPLOAD_LIMIT_EXCEEDED: 429,
  UPLOAD_OFFSET_CONFLICT: 409,
};

// Koa's own 4xx errors (body parsing, routing, send) by status; any other 4xx is INVALID_REQUEST.
const CODE_OF_STATUS: Partial<Record<number, ApiErrorCode>> = { 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE", 416: "RANGE_NOT_SATISFIABLE" };

interface ErrorResponse {
  status: number;
  code: ApiErrorCode;
  message: string;
  headers: Record<string, string>;
  /** Set when PostgreSQL refused one of the request's values: a 400 all the same, and a check to add. */
  refusedBy?: "database";
}

const REFUSED_VALUE_MESSAGES: Record<RefusedValue, string> = {
  text: "the request holds text the service cannot store: a NUL character or a byte sequence that is no UTF-8",
  range: "a value in the request is too long or out of range",
  syntax: "a value in the request is malformed",
};

/**
 * Maps every error to the interface's error body `{error:{code,message,request_id}}` with its status and
 * headers. 5xx messages stay generic; the details go to the log.
 */
export function errorResponse(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const response = toErrorResponse(error);
      // An outage answered with 503 is expected and logged as a warning; anything else 5xx is a defect.
      if (response.refusedBy === "database") ctx.state.log.warn({ err: error }, "request refused by the database: a value no check caught");
      else if (response.status === 503) ctx.state.log.warn({ cause: (error as Error).message }, "request failed: service unavailable");
      else if (response.status >= 500) ctx.state.log.error({ err: error }, "request failed");
      ctx.status = response.status;
      ctx.set(response.headers);
      ctx.body = { error: { code: response.code, message: response.message, request_id: ctx.state.requestId } };
    }
  };
}

function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof ServiceError) return fromServiceError(error);
  const status = (error as { status?: unknown }).status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return { status, code: CODE_OF_STATUS[status] ?? "INVALID_REQUEST", message: (error as Error).message, headers: {} };
  }
  if (isDatabaseUnavailable(error)) return fromServiceError(serviceUnavailable());
  // The last line: a value no check caught, refused by PostgreSQL for what it is, is the client's error.
  const refused = refusedValue(error);
  if (refused) return { ...fromServiceError(invalidRequest(REFUSED_VALUE_MESSAGES[refused])), refusedBy: "database" };
  return fromServiceError(new ServiceError("INTERNAL_ERROR", "internal error"));
}

function fromServiceError({ code, message, details }: ServiceError): ErrorResponse {
  const headers: Record<string, string> = {};
  if (code === "UNAUTHORIZED") headers["WWW-Authenticate"] = 'Bearer realm="captions"';
  if (code === "INSUFFICIENT_SCOPE") headers["WWW-Authenticate"] = `Bearer error="insufficient_scope", scope="${details.requiredScope}"`;
  if (details.retryAfterSeconds !== undefined) headers["Retry-After"] = String(details.retryAfterSeconds);
  return { status: STATUS[code], code, message, headers };
}
