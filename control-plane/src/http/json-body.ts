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
  // JSON may spell a lone surrogate (`"\ud800"`), which JavaScript keeps but no UTF-8 text (PostgreSQL's
  // included) can hold: refused here, for every field of every body, rather than failing at the database.
  const wellFormed: Middleware<AppState> = async (ctx, next) => {
    const where = illFormedString(ctx.request.body);
    if (where !== null) throw invalidRequest(`${where} holds a lone surrogate (\\ud800 to \\udfff unpaired): text must be well-formed Unicode`);
    await next();
  };
  return [requireJson, parse, wellFormed];
}

/** Where the first string (or property name) of `body` that is not well-formed UTF-16 lies, as `words[3].text`; null when none is. */
function illFormedString(body: unknown): string | null {
  // Iterative: a body may nest as deep as its size allows.
  const pending: [unknown, string][] = [[body, ""]];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const [value, at] = item;
    if (typeof value === "string") {
      if (!value.isWellFormed()) return at || "body";
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], `${at}[${i}]`]);
    } else if (value !== null && typeof value === "object") {
      for (const [key, child] of Object.entries(value).reverse()) {
        const name = at === "" ? key : `${at}.${key}`;
        if (!key.isWellFormed()) return at === "" ? "a field name" : `a field name in ${at}`;
        pending.push([child, name]);
      }
    }
  }
  return null;
}

/** The request's `Idempotency-Key`: undefined when absent, 400 when malformed. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const raw = ctx.get("Idempotency-Key");
  if (raw === "") return undefined;
  if (!IDEMPOTENCY_KEY.test(raw)) throw invalidRequest("Idempotency-Key must be 1 to 255 visible ASCII characters");
  return raw;
}
