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

/** A value met on the walk and how it was reached: a path is spelled out only for the value refused. */
interface Step {
  value: unknown;
  key: string | number | null;
  parent: Step | null;
}

/** The step's place in the body, as `words[3].text`; "" for the body itself. */
function pathOf(step: Step): string {
  const keys: (string | number)[] = [];
  for (let s: Step | null = step; s !== null && s.key !== null; s = s.parent) keys.push(s.key);
  return keys.reduceRight<string>((at, key) => (typeof key === "number" ? `${at}[${key}]` : at === "" ? key : `${at}.${key}`), "");
}

/** Where the first string (or property name) of `body` that is not well-formed UTF-16 lies, as `words[3].text`; null when none is. */
function illFormedString(body: unknown): string | null {
  // Iterative: a body may nest as deep as its size allows.
  const pending: Step[] = [{ value: body, key: null, parent: null }];
  for (let step = pending.pop(); step; step = pending.pop()) {
    const { value } = step;
    if (typeof value === "string") {
      if (!value.isWellFormed()) return pathOf(step) || "body";
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push({ value: value[i], key: i, parent: step });
    } else if (value !== null && typeof value === "object") {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] ?? "";
        if (!key.isWellFormed()) {
          const at = pathOf(step);
          return at === "" ? "a field name" : `a field name in ${at}`;
        }
        pending.push({ value: (value as Record<string, unknown>)[key], key, parent: step });
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
