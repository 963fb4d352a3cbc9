import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { JobFailure } from "@caption/shared/errors/codes";
import { checkAddress } from "./address-policy.ts";

export interface ResolvedTarget {
  url: URL;
  /** The hostname as written in the URL (brackets removed); used for SNI and Host. */
  hostname: string;
  /** The one address the download connects to, checked against the address policy. */
  address: string;
  family: 4 | 6;
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
export function parseVideoUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new JobFailure("URL_NOT_ALLOWED", "The video URL is not a valid URL");
  }
  if (url.protocol !== "https:") throw new JobFailure("URL_NOT_ALLOWED", `Only HTTPS video URLs are accepted, not ${url.protocol}`);
  return url;
}

/**
 * Resolves the URL's host once and applies the SSRF policy to every address it has, so the
 * download can connect to a checked address and a second lookup cannot swap it (DNS rebinding).
 */
export async function resolveTarget(url: URL, opts: { signal: AbortSignal; allowPrivateAddresses: boolean }): Promise<ResolvedTarget> {
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
      throw new JobFailure("VIDEO_UNREACHABLE", `Could not resolve ${hostname} (${code})`, { cause: error });
    }
  }
  const [first] = addresses;
  if (!first) throw new JobFailure("VIDEO_UNREACHABLE", `${hostname} has no addresses`);
  if (!opts.allowPrivateAddresses) {
    for (const { address } of addresses) {
      const verdict = checkAddress(address);
      if (!verdict.allowed) {
        const subject = literal !== 0 ? "The video URL points to a" : `${hostname} resolves to a`;
        throw new JobFailure("URL_NOT_ALLOWED", `${subject} ${verdict.reason}, which is not allowed`);
      }
    }
  }
  return { url, hostname, address: first.address, family: first.family === 6 ? 6 : 4 };
}
