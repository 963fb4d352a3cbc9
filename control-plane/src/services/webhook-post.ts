import { pinnedHttpsRequest } from "@caption/shared/net/pinned-https";
import type { DnsOptions } from "@caption/shared/net/dns-resolve";
import { parseHttpsUrl, resolveTarget } from "@caption/shared/net/resolve-target";
import type { LookupGate } from "./lookup-gate.ts";

export interface WebhookPostOptions {
  /** DNS, connect, TLS, the answer and its body together. */
  timeoutMs: number;
  /** Tests only (ALLOW_PRIVATE_VIDEO_URLS): lets deliveries reach loopback and private addresses. */
  allowPrivateAddresses: boolean;
  /** Each account's cap on name lookups in flight; none in unit tests of the POST alone. */
  lookupGate?: LookupGate;
  /** Tests and benchmarks only: the name servers to ask. */
  dns?: DnsOptions;
}

export type PostResult = { statusCode: number; error: string | null } | { statusCode: null; error: string };

/** What a receiver may answer with that we read (and drop): enough for an error page, never more. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs a signed webhook body under the video URLs' SSRF policy: HTTPS only, the host resolved once
 * and refused if any address is private, loopback, link-local or metadata, the connection pinned to
 * the checked address, no redirects followed (a 3xx is a failed attempt). Never throws: every
 * outcome is a status code or an error text for the delivery log.
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: WebhookPostOptions,
  accountId = "",
): Promise<PostResult> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const gate = options.lookupGate;
  try {
    const target = await resolveTarget(parseHttpsUrl(url, { label: "webhook URL" }), {
      label: "webhook URL",
      signal,
      allowPrivateAddresses: options.allowPrivateAddresses,
      ...(options.dns ? { dns: options.dns } : {}),
      ...(gate ? { gateLookup: <T>(lookup: () => Promise<T>) => gate.run(accountId, signal, lookup) } : {}),
    });
    const response = await pinnedHttpsRequest(target, {
      method: "POST",
      signal,
      headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "user-agent": "caption-service-webhooks" },
      body,
    });
    let read = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (read > MAX_RESPONSE_BYTES) {
        response.destroy();
        break;
      }
    }
    const statusCode = response.statusCode ?? 0;
    if (statusCode >= 200 && statusCode < 300) return { statusCode, error: null };
    const redirect = statusCode >= 300 && statusCode < 400 ? "; redirects are not followed" : "";
    return { statusCode, error: `the receiver answered HTTP ${statusCode}${redirect}` };
  } catch (error) {
    if (signal.aborted) return { statusCode: null, error: `no answer within ${options.timeoutMs} ms` };
    return { statusCode: null, error: (error as Error).message || String(error) };
  }
}
