import type { Scope } from "@caption/shared/api/scopes";
import type { Db } from "@caption/shared/db/database";
import { findKeyAndCountRequest } from "../db/api-key-repository.ts";
import { apiKeyPrefix, hashApiKey } from "./api-key-secret.ts";
import { ServiceError } from "./service-error.ts";

/** The account a request acts for, through which API key. */
export interface Principal {
  accountId: string;
  apiKeyId: string;
  scopes: readonly Scope[];
}

// A write key implies read (docs/api.md "Authentication and scopes").
const grants = (scopes: readonly Scope[], needed: Scope) => scopes.includes(needed) || (needed === "subtitles:read" && scopes.includes("subtitles:write"));

const unauthorized = () => new ServiceError("UNAUTHORIZED", "a valid API key is required: Authorization: Bearer <API_KEY>");

/** Checks an API key and its scope, and counts the request against the key's rate in the minute of `now`. */
export async function authenticateApiKey(db: Db, key: string | undefined, needed: Scope, now: Date): Promise<Principal> {
  const prefix = key ? apiKeyPrefix(key) : null;
  if (!key || !prefix) throw unauthorized();
  // Comparing hashes in SQL leaks nothing useful by timing: a stored SHA-256 cannot be turned back into a key.
  const row = await findKeyAndCountRequest(db, prefix, hashApiKey(key), now);
  if (!row) throw unauthorized();
  if (!grants(row.scopes, needed)) throw new ServiceError("INSUFFICIENT_SCOPE", `this API key lacks the ${needed} scope`, { requiredScope: needed });
  if (row.window_count > row.rate_limit_per_minute) {
    const retryAfterSeconds = Math.max(1, Math.ceil((row.window_start.getTime() + 60_000 - now.getTime()) / 1000));
    throw new ServiceError("RATE_LIMITED", `rate limit of ${row.rate_limit_per_minute} requests per minute exceeded`, { retryAfterSeconds });
  }
  return { accountId: row.account_id, apiKeyId: row.id, scopes: row.scopes };
}
