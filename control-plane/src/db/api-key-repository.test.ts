import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { createDatabase, type Db } from "@caption/shared/db/database";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { findKeyAndCountRequest, findKeyAndCountRequestWithJob } from "./api-key-repository.ts";

// Counting a request is a statement of its own whose only write is the count: it commits without
// waiting for the WAL flush (so no poll waits behind other accounts' commits), and it refuses to run
// inside a transaction, whose other writes must stay durable.

let database: TestDatabase;
let single: Db;
const AT = new Date("2030-05-01T12:00:30.000Z");

before(async () => {
  database = await createTestDatabase();
  // One connection: a BEGIN sent first holds the statement in a transaction the test can look into.
  single = createDatabase(database.url, { max: 1 });
  await database.db.insertInto("accounts").values({ id: "acct_counted", name: "counted" }).execute();
  await database.db.insertInto("api_keys").values({ id: "key_counted", account_id: "acct_counted", name: "k", prefix: "counted00000", secret_hash: "h", scopes: ["subtitles:read"] }).execute();
});
after(async () => {
  await single.destroy();
  await database.dispose();
});

const setting = async () => (await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(single)).rows[0]?.synchronous_commit;

for (const [name, count] of [
  ["the key alone", () => findKeyAndCountRequest(single, "counted00000", "h", AT)],
  ["the key with a job", () => findKeyAndCountRequestWithJob(single, "counted00000", "h", AT, "job_none")],
] as const) {
  test(`counting a request (${name}) commits asynchronously: its transaction, and only it, has synchronous_commit off`, async () => {
    assert.equal(await setting(), "on");
    await sql`BEGIN`.execute(single);
    try {
      const found = await count();
      assert.ok(found);
      assert.equal(await setting(), "off");
    } finally {
      await sql`ROLLBACK`.execute(single);
    }
    assert.equal(await setting(), "on", "the setting ends with the transaction");
  });
}

test("a wrong secret counts nothing and finds nothing", async () => {
  assert.equal(await findKeyAndCountRequest(single, "counted00000", "wrong", AT), undefined);
});

test("counting inside a transaction is refused: the asynchronous commit would cover the transaction's other writes", async () => {
  await assert.rejects(
    database.db.transaction().execute((trx) => findKeyAndCountRequest(trx, "counted00000", "h", AT)),
    /never inside a transaction/,
  );
  await assert.rejects(
    database.db.transaction().execute((trx) => findKeyAndCountRequestWithJob(trx, "counted00000", "h", AT, "job_none")),
    /never inside a transaction/,
  );
});
