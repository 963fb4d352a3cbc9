import type { ResultLinks } from "./result-links.ts";
import type { UrlSigner } from "./signed-url.ts";

/** Links to this API's own /v1/files route (local storage), HMAC-signed with the job's expiry. */
export function createLocalResultLinks(signer: UrlSigner): ResultLinks {
  return { url: async (key, expiresAt, baseUrl) => signer.url(baseUrl, key, expiresAt) };
}
