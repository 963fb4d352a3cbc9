import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import pg from "pg";
import { CONNECTION_BUDGET } from "@caption/shared/db/connection-budget";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { createUploadLocker, uploadLockKey } from "./upload-locker.ts";

// The lock pool's connections (what `npm run plan` counts for it), and more waiters than that.
const POOL = CONNECTION_BUDGET.api.uploadLocks;
const WAITERS = POOL + 6;

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.dispose());

test("requests waiting for a busy upload's lock hold no connection: another upload's lock is taken while they wait", async () => {
  const locker = createUploadLocker(database.url);
  const stop = new AbortController();
  const noRelease = async () => undefined;
  // Another API process holds upload A's lock for as long as the test says.
  const elsewhere = new pg.Client({ connectionString: database.url });
  await elsewhere.connect();
  try {
    // Every pool connection opened beforehand, one at a time: the test is about who holds them, not how fast they open.
    const warm = Array.from({ length: POOL }, (_, i) => locker.newLock(`upl_warm${i}`));
    for (const lock of warm) await lock.lock(stop.signal, noRelease);
    const held = await elsewhere.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'caption-upload-locks' AND datname = current_database()");
    assert.equal(held.rows[0]?.n, POOL, "one connection per upload locked, as many as the connection budget counts");
    for (const lock of warm) await lock.unlock();

    await elsewhere.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [uploadLockKey("upl_A")]);
    let acquired = 0;
    const waiters = Array.from({ length: WAITERS }, () => {
      const lock = locker.newLock("upl_A");
      return lock.lock(stop.signal, noRelease).then(async () => {
        acquired += 1;
        await lock.unlock();
      });
    });
    const other = locker.newLock("upl_B");
    await other.lock(stop.signal, noRelease);
    assert.equal(acquired, 0, "upload A is still held elsewhere");
    await other.unlock();

    await elsewhere.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [uploadLockKey("upl_A")]);
    await Promise.all(waiters);
    assert.equal(acquired, WAITERS, "each waiter took A's lock in turn once it was let go");
  } finally {
    stop.abort();
    await elsewhere.end();
    await locker.close();
  }
});
