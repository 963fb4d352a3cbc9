import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { checkAddress } from "./address-policy.ts";

// One SSRF-safe way to reach a URL a user gave us (a video source, a webhook endpoint): HTTPS only,
// the host resolved once, every address it has checked against the policy, and the connection
// pinned to the checked address (see pinned-https.ts), so a second lookup cannot swap it.

export interface ResolvedTarget {
  url: URL;
  /** The hostname as written in the URL (brackets removed); used for SNI and Host. */
  hostname: string;
  /** The one address the request connects to, checked against the address policy. */
  address: string;
  family: 4 | 6;
}

/** Why a URL may not be called: the caller maps the kind to its own error (a job failure, a 400, a failed delivery). */
export type UnsafeTargetKind = "invalid-url" | "not-https" | "forbidden-address" | "unresolvable";

export class UnsafeTargetError extends Error {
  readonly kind: UnsafeTargetKind;
  constructor(kind: UnsafeTargetKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "UnsafeTargetError";
    this.kind = kind;
  }
}

export interface TargetOptions {
  /** What the URL is, for messages: "video URL", "webhook URL". */
  label: string;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Parses the URL and allows only HTTPS. */
export function parseHttpsUrl(raw: string, options: TargetOptions): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeTargetError("invalid-url", `The ${options.label} is not a valid URL`);
  }
  if (url.protocol !== "https:") throw new UnsafeTargetError("not-https", `Only HTTPS ${options.label}s are accepted, not ${url.protocol}`);
  return url;
}

/** The first refused address of `addresses`, as the message that explains it; null when all are allowed. */
function refusal(addresses: readonly { address: string }[], hostname: string, literal: boolean, label: string): string | null {
  for (const { address } of addresses) {
    const verdict = checkAddress(address);
    if (!verdict.allowed) {
      const subject = literal ? `The ${label} points to a` : `${hostname} resolves to a`;
      return `${subject} ${verdict.reason}, which is not allowed`;
    }
  }
  return null;
}

/**
 * Resolves the URL's host once and applies the SSRF policy to every address it has. Rejects with an
 * UnsafeTargetError (or the signal's reason when aborted).
 */
export async function resolveTarget(url: URL, opts: TargetOptions & { signal: AbortSignal; allowPrivateAddresses: boolean }): Promise<ResolvedTarget> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: { address: string; family: number }[];
  const literal = isIP(hostname);
  if (literal !== 0) {
    addresses = [{ address: hostname, family: literal }];
  } else {
    try {
      addresses = await raceAbort(lookup(hostname, { all: true, order: "ipv4first" }), opts.signal);
    } catch (error) {
      if (opts.signal.aborted) throw opts.signal.reason;
      const code = (error as NodeJS.ErrnoException).code ?? "lookup failed";
      throw new UnsafeTargetError("unresolvable", `Could not resolve ${hostname} (${code})`, { cause: error });
    }
  }
  const [first] = addresses;
  if (!first) throw new UnsafeTargetError("unresolvable", `${hostname} has no addresses`);
  if (!opts.allowPrivateAddresses) {
    const refused = refusal(addresses, hostname, literal !== 0, opts.label);
    if (refused) throw new UnsafeTargetError("forbidden-address", refused);
  }
  return { url, hostname, address: first.address, family: first.family === 6 ? 6 : 4 };
}
