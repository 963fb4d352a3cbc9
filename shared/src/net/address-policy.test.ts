import assert from "node:assert/strict";
import { test } from "node:test";
import { checkAddress } from "./address-policy.ts";

const ALLOWED = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.215.14",
  "100.63.255.255",
  "100.128.0.1",
  "172.15.255.255",
  "172.32.0.1",
  "192.167.1.1",
  "223.255.255.254",
  "2606:4700:4700::1111",
  "2a00:1450:4001:82b::200e",
  "::ffff:8.8.8.8",
  "::ffff:808:808",
  "64:ff9b::808:808", // NAT64 of a public address (DNS64 networks)
  "2001:4860:4860::8888", // outside 2001::/23
];

const REFUSED: [string, RegExp][] = [
  ["127.0.0.1", /loopback/],
  ["127.255.255.254", /loopback/],
  ["10.1.2.3", /private/],
  ["172.16.0.1", /private/],
  ["172.31.255.255", /private/],
  ["192.168.1.1", /private/],
  ["100.64.0.1", /CGNAT/],
  ["100.127.255.255", /CGNAT/],
  ["169.254.1.1", /link-local/],
  ["169.254.169.254", /cloud metadata/],
  ["100.100.100.200", /cloud metadata/],
  ["168.63.129.16", /cloud metadata/],
  ["192.0.0.192", /cloud metadata/],
  ["0.0.0.0", /unspecified/],
  ["0.1.2.3", /unspecified/],
  ["192.0.2.10", /documentation/],
  ["198.51.100.7", /documentation/],
  ["203.0.113.99", /documentation/],
  ["198.18.0.1", /benchmarking/],
  ["224.0.0.1", /multicast/],
  ["239.255.255.250", /multicast/],
  ["240.0.0.1", /reserved/],
  ["255.255.255.255", /reserved/],
  ["::", /unspecified/],
  ["::1", /loopback/],
  ["0:0:0:0:0:0:0:1", /loopback/],
  ["fe80::1", /link-local/],
  ["fe80::1%eth0", /link-local/],
  ["fc00::1", /unique local/],
  ["fd12:3456::1", /unique local/],
  ["fd00:ec2::254", /cloud metadata/],
  ["ff02::1", /multicast/],
  ["2001:db8::1", /documentation/],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", /Teredo/],
  ["2002:c000:0204::1", /6to4/],
  ["fec0::1", /site-local/],
  ["::ffff:127.0.0.1", /loopback.*embedded/],
  ["::ffff:7f00:1", /loopback.*embedded/],
  ["0:0:0:0:0:FFFF:A9FE:A9FE", /cloud metadata.*embedded/],
  ["::ffff:10.0.0.1", /private.*embedded/],
  ["64:ff9b::10.0.0.1", /private.*embedded/],
  ["64:ff9b::a9fe:a9fe", /cloud metadata.*embedded/],
  ["64:ff9b:1::1", /local NAT64/],
  ["::127.0.0.1", /IPv4-compatible/],
  ["localhost", /not an IP address/],
  ["", /not an IP address/],
];

for (const address of ALLOWED) {
  test(`allows ${address}`, () => {
    assert.deepEqual(checkAddress(address), { allowed: true });
  });
}

for (const [address, reason] of REFUSED) {
  test(`refuses ${address || "(empty)"}`, () => {
    const verdict = checkAddress(address);
    assert.equal(verdict.allowed, false);
    if (!verdict.allowed) assert.match(verdict.reason, reason);
  });
}
