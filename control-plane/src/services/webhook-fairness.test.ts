import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { claimDeliveriesToEnqueue, markEnqueued } from "../db/webhook-delivery-repository.ts";
import { insertAccountWithEndpoints } from "../testing/webhook-endpoint-rows.ts";

// Which due deliveries the relay hands to the queue: one in flight per endpoint, oldest first, and
// each active account an equal share of the senders' places but one, accounts taking turns. The
// clock is a parameter: nothing waits.

let database: TestDatabase;
const T0 = new Date("2030-03-01T00:00:00.000Z");
const at = (s: number) => new Date(T0.getTime() + s * 1000);

before(async () => {
  database = await createTestDatabase();
});
after(() => database.dispose());

let serial = 0;
async function accountWithEndpoints(count: number): Promise<string[]> {
  const endpoints = Array.from({ length: count }, () => ({ events: ["webhook_endpoint.disabled" as const] }));
  return insertAccountWithEndpoints(database.db, `acct_f${++serial}`, endpoints, T0);
}

/** A due delivery to `endpoint` (an endpoint event's: it has its body, no job). */
async function delivery(endpoint: string, dueAt: Date, extra: { state?: "pending" | "delivered"; enqueued?: boolean } = {}): Promise<number> {
  const row = await database.db
    .insertInto("webhook_deliveries")
    .values({ endpoint_id: endpoint, event_id: `evt_${++serial}`, type: "webhook_endpoint.disabled", event_at: dueAt, next_attempt_at: dueAt, payload: "{}", ...extra })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

const claimAll = (now: Date) => database.db.transaction().execute((trx) => claimDeliveriesToEnqueue(trx, now, 100, 10));
/** What a hand-over would take of these endpoints' deliveries (the tests share one database). */
async function claimOf(endpoints: string[], now: Date) {
  const mine = await database.db.selectFrom("webhook_deliveries").select("id").where("endpoint_id", "in", endpoints).execute();
  return (await claimAll(now)).filter((row) => mine.some((m) => m.id === row.id));
}
const settle = (ids: number[]) => database.db.updateTable("webhook_deliveries").set({ state: "delivered" }).where("id", "in", ids).execute();
const handOver = (ids: number[], now: Date) => database.db.transaction().execute((trx) => markEnqueued(trx, ids, now));

test("two accounts share 9 of 10 places: one with 10 busy endpoints gets 4 in the queue, the other's delivery goes in the same hand-over, on the first turn", async () => {
  const noisy = await accountWithEndpoints(10);
  const [quiet = ""] = await accountWithEndpoints(1);
  // The noisy account's backlog is older: 5 deliveries per endpoint, all due.
  for (let i = 0; i < 5; i++) for (const endpoint of noisy) await delivery(endpoint, at(i));
  const quietOne = await delivery(quiet, at(100));
  const first = await claimOf([...noisy, quiet], at(200));
  assert.equal(first.length, 5);
  assert.ok(first.slice(0, 2).some((row) => row.id === quietOne), "each account's first before anyone's second");
  await handOver(first.map((row) => row.id), at(200));

  // Nothing more while they are in flight: the noisy account is at its share, the quiet endpoint busy.
  await delivery(quiet, at(201));
  assert.deepEqual(await claimOf([...noisy, quiet], at(202)), []);
  // One settles: that account may queue one more.
  await settle([first[0]?.id ?? 0, quietOne]);
  const second = await claimOf([...noisy, quiet], at(203));
  assert.equal(second.length, 2);
});

test("an endpoint's deliveries go one at a time, in the order they came due; a retry waiting for its time holds back nothing", async () => {
  const [endpoint = ""] = await accountWithEndpoints(1);
  const retrying = await delivery(endpoint, at(3600)); // a failed attempt's retry, due in an hour
  const a = await delivery(endpoint, at(10));
  const b = await delivery(endpoint, at(11));
  const c = await delivery(endpoint, at(12));
  assert.deepEqual((await claimOf([endpoint], at(20))).map((r) => r.id), [a]);
  await handOver([a], at(20));
  assert.deepEqual(await claimOf([endpoint], at(21)), [], "one in flight per endpoint");
  await settle([a]);
  assert.deepEqual((await claimOf([endpoint], at(22))).map((r) => r.id), [b]);
  await handOver([b], at(22));
  await settle([b]);
  assert.deepEqual((await claimOf([endpoint], at(3700))).map((r) => r.id), [c], "due since 12 s, before the retry due at 3600 s");
  await handOver([c], at(3700));
  await settle([c]);
  assert.deepEqual((await claimOf([endpoint], at(3701))).map((r) => r.id), [retrying]);
});

test("an endpoint whose whole backlog waits for retries costs the hand-over one index step, not a step per row", async () => {
  const [endpoint = ""] = await accountWithEndpoints(1);
  const first = await delivery(endpoint, at(7200));
  // Rows the hand-over's own transaction fetched through indexes. The other tests' endpoints and their queued
  // deliveries cost what they cost; what is under test is that 299 more waiting rows of one endpoint add nothing.
  const fetched = async () => {
    await sql`ANALYZE webhook_deliveries`.execute(database.db); // as autovacuum would: the plan is what is under test
    return database.db.transaction().execute(async (trx) => {
      const claimed = await claimDeliveriesToEnqueue(trx, at(3600), 100, 10);
      assert.ok(claimed.every((row) => row.id < first), "none of its deliveries is due");
      const stats = await sql<{ fetched: string }>`
        SELECT idx_tup_fetch AS fetched FROM pg_stat_xact_user_tables WHERE relname = 'webhook_deliveries'`.execute(trx);
      return Number(stats.rows[0]?.fetched ?? 0);
    });
  };
  const withOne = await fetched();
  for (let i = 1; i < 300; i++) await delivery(endpoint, at(7200 + i));
  const withMany = await fetched();
  assert.ok(withMany - withOne < 30, `fetched ${withOne} rows with one waiting delivery, ${withMany} with 300`);
});

test("a disabled endpoint's deliveries are not handed over", async () => {
  const [endpoint = ""] = await accountWithEndpoints(1);
  await delivery(endpoint, at(0));
  await database.db.updateTable("webhook_endpoints").set({ disabled_at: at(0), disabled_reason: "test" }).where("id", "=", endpoint).execute();
  const claimed = await claimOf([endpoint], at(10));
  const mine = await database.db.selectFrom("webhook_deliveries").select("id").where("endpoint_id", "=", endpoint).execute();
  assert.equal(claimed.filter((row) => mine.some((m) => m.id === row.id)).length, 0);
});
