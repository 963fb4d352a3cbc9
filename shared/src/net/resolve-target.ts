import { isIP } from "node:net";
import { checkAddress } from "./address-policy.ts";
import { resolveHostAddresses, type DnsOptions } from "./dns-resolve.ts";

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

export interface ResolveOptions extends TargetOptions {
  signal: AbortSignal;
  allowPrivateAddresses: boolean;
  dns?: DnsOptions;
  /** Runs the name lookup (not for IP literals) when the caller allows it: a cap on one account's lookups in flight. */
  gateLookup?: <T>(lookup: () => Promise<T>) => Promise<T>;
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

/**
 * The first refused address of `addresses`, as the message that explains it; null when all are allowed.
 * A resolved name's message says the kind of address, never the address: what our resolver answers
 * (an internal network's layout) is not the caller's to see.
 */
function refusal(addresses: readonly { address: string }[], hostname: string, literal: boolean, label: string): string | null {
  for (const { address } of addresses) {
    const verdict = checkAddress(address);
    if (!verdict.allowed) {
      if (literal) return `The ${label} points to a ${verdict.reason}, which is not allowed`;
      return `${hostname} resolves to a ${verdict.category} address, which is not allowed`;
    }
  }
  return null;
}

/**
 * Resolves the URL's host once and applies the SSRF policy to every address it has. Rejects with an
 * UnsafeTargetError (or the signal's reason when aborted).
 */
export async function resolveTarget(url: URL, opts: ResolveOptions): Promise<ResolvedTarget> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: { address: string; family: number }[];
  const literal = isIP(hostname);
  if (literal !== 0) {
    addresses = [{ address: hostname, family: literal }];
  } else {
    try {
      const lookup = () => resolveHostAddresses(hostname, opts.signal, opts.dns);
      addresses = await (opts.gateLookup ? opts.gateLookup(lookup) : lookup());
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
