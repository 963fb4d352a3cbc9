import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Capability URLs for result files: HMAC-signed, expiring at the job's `expires_at`, usable
 * without an API key by anyone holding them.
 */
export interface UrlSigner {
  url(baseUrl: string, key: string, expiresAt: Date): string;
  verify(key: string, expires: string | undefined, signature: string | undefined, now?: Date): boolean;
  /** The query of a capability URL for `key` (upload URLs reuse the result links' key and scheme). */
  query(key: string, expiresAt: Date): string;
  /** Tells an expired but genuine signature (410) from a wrong one (404). */
  check(key: string, expires: string | undefined, signature: string | undefined, now: Date): "valid" | "expired" | "invalid";
}

export const FILES_ROUTE_PREFIX = "/v1/files/";
/** A link's `expires`: Unix seconds. */
export const EXPIRES_PATTERN = "^[0-9]{1,12}$";
/** A link's `signature`: an HMAC-SHA256 in base64url. */
export const SIGNATURE_PATTERN = "^[A-Za-z0-9_-]{43}$";
const EXPIRES = new RegExp(EXPIRES_PATTERN);

export function createUrlSigner(secret: string): UrlSigner {
  const mac = (key: string, expires: string) => createHmac("sha256", secret).update(`${key}\n${expires}`).digest("base64url");
  const query = (key: string, expiresAt: Date) => {
    const expires = String(Math.floor(expiresAt.getTime() / 1000));
    return `expires=${expires}&signature=${mac(key, expires)}`;
  };
  const check = (key: string, expires: string | undefined, signature: string | undefined, now: Date) => {
    if (!expires || !signature || !EXPIRES.test(expires)) return "invalid";
    const expected = Buffer.from(mac(key, expires));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "invalid";
    return Number(expires) * 1000 <= now.getTime() ? "expired" : "valid";
  };
  return {
    url: (baseUrl, key, expiresAt) => `${baseUrl.replace(/\/+$/, "")}${FILES_ROUTE_PREFIX}${key.split("/").map(encodeURIComponent).join("/")}?${query(key, expiresAt)}`,
    verify: (key, expires, signature, now = new Date()) => check(key, expires, signature, now) === "valid",
    query,
    check,
  };
}
