import bodyParser from "@koa/bodyparser";
import type { Context, Middleware } from "koa";
import { invalidRequest, ServiceError } from "../services/service-error.ts";
import type { AppState } from "./app-state.ts";

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * A JSON request body: `Content-Type: application/json` or 400, sent as is (any `Content-Encoding` but
 * `identity` is 415: an inflated body would be counted against the limit only after inflating, a few
 * bytes of brotli becoming megabytes to parse), then parsed up to `limit` bytes. A body
 * that does not parse is 400; one over the limit is 413 PAYLOAD_TOO_LARGE when `tooLargeIs413`, else 400
 * like any other unparsable body (POST /v1/subtitles has always answered so).
 */
export function jsonBody(options: { limit: string | number; tooLargeIs413: boolean }): Middleware<AppState>[] {
  const requireJson: Middleware<AppState> = async (ctx, next) => {
    if (!ctx.is("application/json")) throw invalidRequest("Content-Type must be application/json");
    const encoding = ctx.get("Content-Encoding").trim().toLowerCase();
    if (encoding !== "" && encoding !== "identity") {
      throw new ServiceError("UNSUPPORTED_MEDIA_TYPE", "request bodies are read as sent: Content-Encoding must be absent or identity");
    }
    await next();
  };
  const parse = bodyParser({
    enableTypes: ["json"],
    jsonLimit: options.limit,
    encoding: "utf-8",
    onError: (error) => {
      if (options.tooLargeIs413 && (error as { status?: unknown }).status === 413) throw error;
      throw invalidRequest("request body must be a JSON object");
    },
  });
  return [requireJson, parse];
}

/** The request's `Idempotency-Key`: undefined when absent, 400 when malformed. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const raw = ctx.get("Idempotency-Key");
  if (raw === "") return undefined;
  if (!IDEMPOTENCY_KEY.test(raw)) throw invalidRequest("Idempotency-Key must be 1 to 255 visible ASCII characters");
  return raw;
}
