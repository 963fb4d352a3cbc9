import { BlockList, isIPv4, isIPv6 } from "node:net";

// The SSRF policy of every URL a user gives us to fetch or call: video sources and webhook endpoints.
/** `reason` names the address; `category` ("loopback", "private", …) does not, for messages about resolved names. */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: string; category: string };

type Family = "ipv4" | "ipv6";

interface Rule {
  reason: string;
  family: Family;
  network: string;
  prefix: number;
}

// First match names the reason, so specific entries (metadata services) precede their ranges.
const RULES: readonly Rule[] = [
  { reason: "cloud metadata", family: "ipv4", network: "169.254.169.254", prefix: 32 },
  { reason: "cloud metadata", family: "ipv4", network: "100.100.100.200", prefix: 32 }, // Alibaba
  { reason: "cloud metadata", family: "ipv4", network: "192.0.0.192", prefix: 32 }, // Oracle
  { reason: "cloud metadata", family: "ipv4", network: "168.63.129.16", prefix: 32 }, // Azure wireserver, a public address
  { reason: "unspecified", family: "ipv4", network: "0.0.0.0", prefix: 8 },
  { reason: "private", family: "ipv4", network: "10.0.0.0", prefix: 8 },
  { reason: "shared (CGNAT)", family: "ipv4", network: "100.64.0.0", prefix: 10 },
  { reason: "loopback", family: "ipv4", network: "127.0.0.0", prefix: 8 },
  { reason: "link-local", family: "ipv4", network: "169.254.0.0", prefix: 16 },
  { reason: "private", family: "ipv4", network: "172.16.0.0", prefix: 12 },
  { reason: "reserved", family: "ipv4", network: "192.0.0.0", prefix: 24 },
  { reason: "documentation", family: "ipv4", network: "192.0.2.0", prefix: 24 },
  { reason: "reserved", family: "ipv4", network: "192.88.99.0", prefix: 24 },
  { reason: "private", family: "ipv4", network: "192.168.0.0", prefix: 16 },
  { reason: "benchmarking", family: "ipv4", network: "198.18.0.0", prefix: 15 },
  { reason: "documentation", family: "ipv4", network: "198.51.100.0", prefix: 24 },
  { reason: "documentation", family: "ipv4", network: "203.0.113.0", prefix: 24 },
  { reason: "multicast", family: "ipv4", network: "224.0.0.0", prefix: 4 },
  { reason: "reserved", family: "ipv4", network: "240.0.0.0", prefix: 4 },
  { reason: "cloud metadata", family: "ipv6", network: "fd00:ec2::254", prefix: 128 }, // AWS
  { reason: "unspecified", family: "ipv6", network: "::", prefix: 128 },
  { reason: "loopback", family: "ipv6", network: "::1", prefix: 128 },
  { reason: "reserved (IPv4-compatible)", family: "ipv6", network: "::", prefix: 96 },
  { reason: "reserved (IPv4-translated)", family: "ipv6", network: "::ffff:0:0:0", prefix: 96 },
  { reason: "reserved (local NAT64)", family: "ipv6", network: "64:ff9b:1::", prefix: 48 },
  { reason: "reserved (discard)", family: "ipv6", network: "100::", prefix: 64 },
  { reason: "reserved (IETF, Teredo)", family: "ipv6", network: "2001::", prefix: 23 },
  { reason: "documentation", family: "ipv6", network: "2001:db8::", prefix: 32 },
  { reason: "reserved (6to4)", family: "ipv6", network: "2002::", prefix: 16 },
  { reason: "documentation", family: "ipv6", network: "3fff::", prefix: 20 },
  { reason: "private (unique local)", family: "ipv6", network: "fc00::", prefix: 7 },
  { reason: "link-local", family: "ipv6", network: "fe80::", prefix: 10 },
  { reason: "reserved (site-local)", family: "ipv6", network: "fec0::", prefix: 10 },
  { reason: "multicast", family: "ipv6", network: "ff00::", prefix: 8 },
];

const COMPILED = RULES.map((rule) => {
  const list = new BlockList();
  list.addSubnet(rule.network, rule.prefix, rule.family);
  return { ...rule, list };
});

/** The eight 16-bit groups of a valid IPv6 address (zone id removed). */
export function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = text.match(/^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill("0");
  return [...headGroups, ...zeros, ...tailGroups].map((group) => Number.parseInt(group, 16));
}

/** The IPv4 address an IPv6 address stands for: IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96). */
function embeddedIpv4(address: string): string | null {
  const groups = ipv6Groups(address);
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const mapped = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  if (!mapped && !nat64) return null;
  return [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff].join(".");
}

function firstMatch(address: string, family: Family): string | null {
  return COMPILED.find((rule) => rule.family === family && rule.list.check(address, family))?.reason ?? null;
}

/**
 * Whether the service may connect to `address` when fetching a user's URL (SSRF policy):
 * only globally routable unicast addresses are allowed.
 */
export function checkAddress(address: string): AddressVerdict {
  const bare = address.replace(/%.*$/, "");
  if (isIPv4(bare)) {
    const reason = firstMatch(bare, "ipv4");
    return reason === null ? { allowed: true } : { allowed: false, reason: `${reason} address ${bare}`, category: reason };
  }
  if (!isIPv6(bare)) return { allowed: false, reason: `${address} is not an IP address`, category: "not an IP address" };
  const ipv4 = embeddedIpv4(bare);
  if (ipv4 !== null) {
    const verdict = checkAddress(ipv4);
    return verdict.allowed ? verdict : { ...verdict, reason: `${verdict.reason} (embedded in ${bare})` };
  }
  const reason = firstMatch(bare, "ipv6");
  return reason === null ? { allowed: true } : { allowed: false, reason: `${reason} address ${bare}`, category: reason };
}
