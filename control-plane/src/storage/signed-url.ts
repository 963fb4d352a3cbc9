import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Capability URLs for result files: HMAC-signed, expiring at the job's `expires_at`, usable
 * without an API key by anyone holding them.
 */
export interface UrlSigner {
  url(baseUrl: string, key: string, expiresAt: Date): string;
  verify(key: string, expires: string | undefined, signature: string | undefined, now?: Date): boolean;
}

export const FILES_ROUTE_PREFIX = "/v1/files/";

export function createUrlSigner(secret: string): UrlSigner {
  const mac = (key: string, expires: string) => createHmac("sha256", secret).update(`${key}\n${expires}`).digest("base64url");
  return {
    url(baseUrl, key, expiresAt) {
      const expires = String(Math.floor(expiresAt.getTime() / 1000));
      return `${baseUrl.replace(/\/+$/, "")}${FILES_ROUTE_PREFIX}${key.split("/").map(encodeURIComponent).join("/")}?expires=${expires}&signature=${mac(key, expires)}`;
    },
    verify(key, expires, signature, now = new Date()) {
      if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return false;
      if (Number(expires) * 1000 <= now.getTime()) return false;
      const expected = Buffer.from(mac(key, expires));
      const given = Buffer.from(signature);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}
