import type { Scope } from "@caption/shared/api/scopes";
import type { Db } from "@caption/shared/db/database";
import type { UploadRow } from "@caption/shared/db/tables";
import { findKeyAndCountRequest, findUploadAndCountRequest, type KeyWithRateCount } from "../db/api-key-repository.ts";
import { apiKeyPrefix, hashApiKey } from "./api-key-secret.ts";
import type { RateRefusals } from "./rate-refusals.ts";
import { ServiceError } from "./service-error.ts";

/** The account a request acts for, through which API key. */
export interface Principal {
  accountId: string;
  apiKeyId: string;
  scopes: readonly Scope[];
}

/** What a request's key is looked up by: its prefix and the SHA-256 of the whole key. */
export interface KeyCredentials {
  prefix: string;
  secretHash: string;
}

// A write key implies read (docs/api.md "Authentication and scopes").
const grants = (scopes: readonly Scope[], needed: Scope) => scopes.includes(needed) || (needed === "subtitles:read" && scopes.includes("subtitles:write"));

const unauthorized = () => new ServiceError("UNAUTHORIZED", "a valid API key is required: Authorization: Bearer <API_KEY>");

/** The lookup of a well-formed key; a missing or malformed one is UNAUTHORIZED before any database work. */
export function keyCredentials(key: string | undefined): KeyCredentials {
  const prefix = key ? apiKeyPrefix(key) : null;
  if (!key || !prefix) throw unauthorized();
  // Comparing hashes in SQL leaks nothing useful by timing: a stored SHA-256 cannot be turned back into a key.
  return { prefix, secretHash: hashApiKey(key) };
}

/** The refusal of a key counted past its rate in the minute of `now`; undefined within it. */
function rateRefusal(row: KeyWithRateCount, now: Date): ServiceError | undefined {
  if (row.window_count <= row.rate_limit_per_minute) return undefined;
  const retryAfterSeconds = Math.max(1, Math.ceil((row.window_start.getTime() + 60_000 - now.getTime()) / 1000));
  return new ServiceError("RATE_LIMITED", `rate limit of ${row.rate_limit_per_minute} requests per minute exceeded`, { retryAfterSeconds });
}

/** The key found (with this request counted) checked for its scope and rate in the minute of `now`. */
export function principalOf(row: KeyWithRateCount | undefined, needed: Scope, now: Date): Principal {
  if (!row) throw unauthorized();
  if (!grants(row.scopes, needed)) throw new ServiceError("INSUFFICIENT_SCOPE", `this API key lacks the ${needed} scope`, { requiredScope: needed });
  const refused = rateRefusal(row, now);
  if (refused) throw refused;
  return { accountId: row.account_id, apiKeyId: row.id, scopes: row.scopes };
}

/**
 * Checks an API key and its scope, and counts the request against the key's rate in the minute of `now`; a key
 * this process has seen over its rate in that minute is refused from memory, uncounted.
 */
export async function authenticateApiKey(db: Db, refusals: RateRefusals, key: string | undefined, needed: Scope, now: Date): Promise<Principal> {
  const { prefix, secretHash } = keyCredentials(key);
  const over = await refusals.refusing(secretHash, now);
  if (over) return principalOf(over, needed, now);
  const row = await findKeyAndCountRequest(db, prefix, secretHash, now);
  refusals.note(secretHash, row);
  return principalOf(row, needed, now);
}

/**
 * The upload an upload URL names, with the request counted against the rate of the key that created it: the URL
 * carries no key, and its requests are the key's own. Undefined (nothing counted) for an unknown upload. An
 * upload whose key is over its rate is refused from memory until the window ends, as the key is.
 */
export async function countUploadRequest(db: Db, refusals: RateRefusals, uploadId: string, now: Date): Promise<UploadRow | undefined> {
  const remembered = `upload:${uploadId}`;
  const over = await refusals.refusing(remembered, now);
  if (over) throw rateRefusal(over, now)!;
  const found = await findUploadAndCountRequest(db, uploadId, now);
  if (!found) return undefined;
  refusals.note(remembered, found.key);
  const refused = rateRefusal(found.key, now);
  if (refused) throw refused;
  return found.upload;
}
