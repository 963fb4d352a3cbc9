import type { Middleware } from "koa";
import type { Db } from "@caption/shared/db/database";
import { findKeyAndCountRequest } from "../../db/api-key-repository.ts";
import { apiKeyPrefix, hashApiKey } from "../../services/api-key-secret.ts";
import { ApiError } from "../api-error.ts";
import type { AppState } from "../app-state.ts";

export type Scope = "subtitles:write" | "subtitles:read";

// A write key implies read (DESIGN.md §5).
const grants = (scopes: readonly string[], needed: Scope) => scopes.includes(needed) || (needed === "subtitles:read" && scopes.includes("subtitles:write"));

const unauthorized = () => new ApiError(401, "UNAUTHORIZED", "a valid API key is required: Authorization: Bearer <API_KEY>", { "WWW-Authenticate": 'Bearer realm="captions"' });

/** Bearer-key authentication, scope check and the per-key request rate limit. */
export function authenticate(db: Db, needed: Scope): Middleware<AppState> {
  return async (ctx, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get("Authorization"));
    const key = match?.[1];
    const prefix = key ? apiKeyPrefix(key) : null;
    if (!key || !prefix) throw unauthorized();
    // Comparing hashes in SQL leaks nothing useful by timing: a stored SHA-256 cannot be turned back into a key.
    const row = await findKeyAndCountRequest(db, prefix, hashApiKey(key));
    if (!row) throw unauthorized();
    if (!grants(row.scopes, needed)) {
      throw new ApiError(401, "INSUFFICIENT_SCOPE", `this API key lacks the ${needed} scope`, {
        "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${needed}"`,
      });
    }
    if (row.window_count > row.rate_limit_per_minute) {
      const retryAfter = Math.max(1, Math.ceil((row.window_start.getTime() + 60_000 - Date.now()) / 1000));
      throw new ApiError(429, "RATE_LIMITED", `rate limit of ${row.rate_limit_per_minute} requests per minute exceeded`, { "Retry-After": String(retryAfter) });
    }
    ctx.state.principal = { accountId: row.account_id, apiKeyId: row.id, scopes: row.scopes };
    ctx.state.log = ctx.state.log.child({ account_id: row.account_id });
    await next();
  };
}
