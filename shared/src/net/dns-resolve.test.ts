import assert from "node:assert/strict";
import { pbkdf2 } from "node:crypto";
import { readFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { startTestDnsServer, type TestDnsServer } from "../testing/dns-server.ts";
import { resolveHostAddresses } from "./dns-resolve.ts";
import { resolveTarget, UnsafeTargetError } from "./resolve-target.ts";

// Names resolve through c-ares against a DNS server on loopback: one that never answers, one that does.

let silent: TestDnsServer;
let answering: TestDnsServer;
before(async () => {
  silent = await startTestDnsServer(() => "never");
  answering = await startTestDnsServer((name) => (name === "inside.test" ? ["10.9.8.7"] : name === "public.test" ? ["93.184.215.14"] : []));
});
after(async () => {
  await silent.close();
  await answering.close();
});

const noSignal = () => new AbortController().signal;

test("lookups a name server never answers hold no thread-pool thread: file reads and pbkdf2 finish meanwhile, then the lookups time out", async () => {
  // Twice libuv's default pool of 4: with getaddrinfo these would hold every thread.
  const names = Array.from({ length: 8 }, (_, i) => `stalled-${i}.test`);
  let settled = 0;
  const lookups = names.map((name) =>
    resolveHostAddresses(name, noSignal(), { servers: [silent.address], queryTimeoutMs: 4000, tries: 1 }).finally(() => (settled += 1)),
  );
  while (silent.questions.length < names.length * 2) await new Promise((resolve) => setImmediate(resolve));
  await Promise.all([
    ...Array.from({ length: 8 }, () => readFile(new URL(import.meta.url))),
    ...Array.from({ length: 4 }, () => promisify(pbkdf2)("pw", "salt", 1, 32, "sha256")),
  ]);
  assert.equal(settled, 0, "the thread-pool work finished while every lookup was still waiting for its server");
  const outcomes = await Promise.allSettled(lookups);
  for (const outcome of outcomes) {
    assert.equal(outcome.status, "rejected");
    if (outcome.status === "rejected") assert.equal((outcome.reason as NodeJS.ErrnoException).code, "ETIMEOUT");
  }
});

test("an aborted lookup is canceled at once, long before its query timeout", async () => {
  const controller = new AbortController();
  const before = silent.questions.length;
  const lookup = resolveHostAddresses("canceled.test", controller.signal, { servers: [silent.address], queryTimeoutMs: 600_000, tries: 1 });
  while (silent.questions.length < before + 2) await new Promise((resolve) => setImmediate(resolve));
  controller.abort(new Error("gave up"));
  await assert.rejects(lookup, /gave up/);
});

test("localhost and names under it are loopback (RFC 6761) without asking a name server", async () => {
  const before = silent.questions.length;
  for (const name of ["localhost", "LOCALHOST.", "api.localhost"]) {
    assert.deepEqual(await resolveHostAddresses(name, noSignal(), { servers: [silent.address] }), [
      { address: "127.0.0.1", family: 4 },
      { address: "::1", family: 6 },
    ]);
  }
  assert.equal(silent.questions.length, before);
  await assert.rejects(
    resolveTarget(new URL("https://localhost:8443/in"), { label: "webhook URL", signal: noSignal(), allowPrivateAddresses: false }),
    (error: unknown) => error instanceof UnsafeTargetError && error.kind === "forbidden-address" && /loopback/.test(error.message),
  );
});

test("a name that resolves to a private address is refused without saying the address; allowed, it is the one connected to", async () => {
  const dns = { servers: [answering.address] };
  const url = new URL("https://inside.test/hook");
  await assert.rejects(resolveTarget(url, { label: "webhook URL", signal: noSignal(), allowPrivateAddresses: false, dns }), (error: unknown) => {
    assert.ok(error instanceof UnsafeTargetError);
    assert.equal(error.kind, "forbidden-address");
    assert.equal(error.message, "inside.test resolves to a private address, which is not allowed");
    return true;
  });
  const target = await resolveTarget(url, { label: "webhook URL", signal: noSignal(), allowPrivateAddresses: true, dns });
  assert.deepEqual([target.address, target.family], ["10.9.8.7", 4]);
  const pub = await resolveTarget(new URL("https://public.test/"), { label: "webhook URL", signal: noSignal(), allowPrivateAddresses: false, dns });
  assert.equal(pub.address, "93.184.215.14");
});

test("a name with no addresses is unresolvable, named by the resolver's code", async () => {
  await assert.rejects(
    resolveTarget(new URL("https://nothing.test/"), { label: "video URL", signal: noSignal(), allowPrivateAddresses: false, dns: { servers: [answering.address] } }),
    (error: unknown) => error instanceof UnsafeTargetError && error.kind === "unresolvable" && /ENOTFOUND/.test(error.message),
  );
});

test("the lookup runs inside the caller's gate", async () => {
  let gated = 0;
  const gateLookup = <T>(lookup: () => Promise<T>) => {
    gated += 1;
    return lookup();
  };
  const base = { label: "webhook URL", signal: noSignal(), allowPrivateAddresses: false, dns: { servers: [answering.address] }, gateLookup };
  await resolveTarget(new URL("https://public.test/"), base);
  await resolveTarget(new URL("https://93.184.215.14/"), base);
  assert.equal(gated, 1, "an IP literal needs no lookup");
});
