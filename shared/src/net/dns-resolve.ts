import { Resolver } from "node:dns/promises";

// Names are resolved with c-ares (dns.Resolver), never dns.lookup: getaddrinfo runs on libuv's
// 4-thread pool, which file reads and new database connections share, and an abandoned getaddrinfo
// keeps its thread until the system resolver gives up. A c-ares query is a socket on the event loop,
// with timeouts of its own, and cancel() ends it at once.

export interface DnsOptions {
  /** Name servers ("127.0.0.1:5353"); default the system's (/etc/resolv.conf). Tests point it at their own. */
  servers?: readonly string[];
  /** c-ares's first per-query timeout (it doubles on each retry); default 2000 ms. */
  queryTimeoutMs?: number;
  /** Tries per name server; default 2. */
  tries?: number;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

const LOOPBACK: readonly ResolvedAddress[] = [
  { address: "127.0.0.1", family: 4 },
  { address: "::1", family: 6 },
];

/** RFC 6761 §6.3: `localhost` and every name under it are loopback, whatever a name server says. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** Errors that mean the name has no address of that family, as opposed to a failed lookup. */
const NO_RECORDS = new Set(["ENODATA", "ENOTFOUND"]);

/**
 * The name's IPv4 then IPv6 addresses, asked in parallel. Rejects with the signal's reason when
 * aborted (both queries canceled), with the resolver's error (code ENOTFOUND, ETIMEOUT, …) when
 * neither family has an address.
 */
export async function resolveHostAddresses(hostname: string, signal: AbortSignal, options: DnsOptions = {}): Promise<ResolvedAddress[]> {
  signal.throwIfAborted();
  if (isLocalhostName(hostname)) return [...LOOPBACK];
  const resolver = new Resolver({ timeout: options.queryTimeoutMs ?? 2000, tries: options.tries ?? 2 });
  if (options.servers) resolver.setServers([...options.servers]);
  const onAbort = () => resolver.cancel();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    signal.throwIfAborted();
    const addresses: ResolvedAddress[] = [
      ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (addresses.length > 0) return addresses;
    const failures = [v4, v6].flatMap((r) => (r.status === "rejected" ? [r.reason as NodeJS.ErrnoException] : []));
    // A real failure (a timeout, a refused server) says more than "no such record" for the other family.
    throw failures.find((error) => !NO_RECORDS.has(error.code ?? "")) ?? failures[0] ?? Object.assign(new Error(`${hostname} has no addresses`), { code: "ENODATA" });
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
