import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTestDnsServer, type TestDnsServer } from "@caption/shared/testing/dns-server";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { createKey } from "./account-admin.ts";
import { createLookupGate } from "./lookup-gate.ts";
import { ServiceError } from "./service-error.ts";
import { createWebhookEndpoint } from "./webhook-endpoint-service.ts";

// Registering an endpoint looks its name up through c-ares, at most four lookups per account at once,
// and only after the 10-endpoint limit let the request through.

let database: TestDatabase;
let answering: TestDnsServer;
let silent: TestDnsServer;
before(async () => {
  database = await createTestDatabase();
  answering = await startTestDnsServer(() => ["93.184.215.14"]);
  silent = await startTestDnsServer(() => "never");
});
after(async () => {
  await Promise.all([answering.close(), silent.close()]);
  await database.dispose();
});

const account = async () => (await createKey(database.db, { name: "k", scopes: ["subtitles:write"], credits: 0 })).account_id;

test("an account at its 10 endpoints is refused before its URL is looked up", async () => {
  const accountId = await account();
  const options = { allowPrivateAddresses: false, lookupGate: createLookupGate(), dns: { servers: [answering.address] }, now: () => new Date() };
  for (let i = 0; i < 10; i++) await createWebhookEndpoint(database.db, accountId, { url: `https://hook-${i}.test/in` }, options);
  assert.equal(answering.questions.filter((q) => q.name.startsWith("hook-")).length, 20, "A and AAAA for each");
  await assert.rejects(
    createWebhookEndpoint(database.db, accountId, { url: "https://eleventh.test/in" }, options),
    (error: unknown) => error instanceof ServiceError && error.code === "INVALID_REQUEST" && /at most 10/.test(error.message),
  );
  assert.equal(answering.questions.filter((q) => q.name === "eleventh.test").length, 0);
});

test("a refused name's message names the kind of address, not the address", async () => {
  const inside = await startTestDnsServer(() => ["10.20.30.40", "fd00::7"]);
  try {
    const options = { allowPrivateAddresses: false, lookupGate: createLookupGate(), dns: { servers: [inside.address] }, now: () => new Date() };
    await assert.rejects(createWebhookEndpoint(database.db, await account(), { url: "https://intranet.test/in" }, options), (error: unknown) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.message, "url: intranet.test resolves to a private address, which is not allowed");
      return true;
    });
  } finally {
    await inside.close();
  }
});

test("one account's registrations against a silent name server hold four lookups; another account's goes through", async () => {
  const gate = createLookupGate();
  const slow = { allowPrivateAddresses: false, lookupGate: gate, dns: { servers: [silent.address], queryTimeoutMs: 600_000, tries: 1 }, now: () => new Date() };
  const attacker = await account();
  const stalled = Array.from({ length: 6 }, (_, i) => createWebhookEndpoint(database.db, attacker, { url: `https://stall-${i}.test/in` }, slow));
  while (silent.questions.length < 8) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(gate.inFlight(attacker), 4);
  const other = await createWebhookEndpoint(database.db, await account(), { url: "https://fine.test/in" }, { ...slow, dns: { servers: [answering.address] } });
  assert.equal(other.url, "https://fine.test/in");
  assert.equal(new Set(silent.questions.map((q) => q.name)).size, 4, "the other two never reached the name server");
  // The check's own 5 s budget ends the stalled ones (an unresolvable host is accepted, as before).
  const created = await Promise.all(stalled);
  assert.equal(created.length, 6);
  assert.equal(gate.inFlight(attacker), 0);
});
