// Times the control plane writes come from the clock it is given, not from the machine's.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { createKey, revokeKey } from "./account-admin.ts";
import { createLookupGate } from "./lookup-gate.ts";
import { createWebhookEndpoint } from "./webhook-endpoint-service.ts";

const AT = new Date("2030-01-02T03:04:05.000Z");
let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.dispose());

test("a revoked key's revoked_at is the given now; a second revoke finds no active key", async () => {
  const { key_prefix } = await createKey(database.db, { name: "k", scopes: ["subtitles:write"], credits: 0 });
  assert.deepEqual(await revokeKey(database.db, key_prefix, AT), { revoked: true, key_prefix, account_id: (await keyRow(key_prefix)).account_id });
  assert.equal((await keyRow(key_prefix)).revoked_at?.toISOString(), AT.toISOString());
  await assert.rejects(revokeKey(database.db, key_prefix, AT), /no active key/);
});

test("a webhook endpoint is created at the clock's now", async () => {
  const { account_id } = await createKey(database.db, { name: "w", scopes: ["subtitles:write"], credits: 0 });
  const created = await createWebhookEndpoint(database.db, account_id, { url: "https://hooks.example.com/in" }, {
    allowPrivateAddresses: false,
    lookupGate: createLookupGate(),
    now: () => AT,
  });
  assert.equal(created.created_at, AT.toISOString());
});

const keyRow = (prefix: string) => database.db.selectFrom("api_keys").selectAll().where("prefix", "=", prefix).executeTakeFirstOrThrow();
