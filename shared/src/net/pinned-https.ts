import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";
import { request } from "node:https";
import type { LookupFunction } from "node:net";
import type { ResolvedTarget } from "./resolve-target.ts";

export interface PinnedRequestOptions {
  method: "GET" | "POST";
  headers: OutgoingHttpHeaders;
  body?: string | Buffer;
  signal: AbortSignal;
  /** Tests only: trusted CA certificates replacing the default ones. */
  ca?: string | Buffer;
}

/**
 * Sends one request to the checked address only (never a second DNS lookup); TLS still verifies the
 * certificate for the URL's hostname. Redirects are never followed: a 3xx is the caller's to judge.
 * Resolves with the response once its headers arrive; the caller reads or destroys the body.
 */
export function pinnedHttpsRequest(target: ResolvedTarget, options: PinnedRequestOptions): Promise<IncomingMessage> {
  const pinnedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  return new Promise((resolve, reject) => {
    const req = request(target.url, {
      method: options.method,
      agent: false,
      lookup: pinnedLookup,
      signal: options.signal,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      headers: options.headers,
    });
    // Stays attached: socket errors after the response are reported through the body stream.
    req.on("error", reject);
    req.once("response", resolve);
    req.end(options.body);
  });
}
