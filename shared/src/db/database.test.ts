import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import pino from "pino";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.ts";
import { startQueueClient } from "../jobs/queue-client.ts";
import { createDatabase, poolConfig } from "./database.ts";
import { isDatabaseUnavailable } from "./database-errors.ts";

// A connection the server terminates (as `pg_ctl restart` does) while it is checked out of the pool
// must fail its queries, be reported, and leave the process and the pool working.

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.dispose());

/** Resolves when the client's connection has ended (events.once would reject on the 'error' before it). */
const ending = (client: pg.PoolClient) => new Promise((resolve) => client.once("end", resolve));

/** Resolves once `condition` holds (a broken connection is reported on its socket's close, after its query failed). */
async function eventually(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    assert.ok(tries < 500, "the condition never held");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Terminates this database's connections of one application (other test files share the cluster). */
async function terminate(applicationName: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = ${applicationName} AND pid <> pg_backend_pid()`.execute(database.db);
  return rows[0]?.n ?? 0;
}

describe("a broken connection never crashes the process", () => {
  test("inside a Kysely transaction: the transaction fails as unavailable, the next query works", async () => {
    const lost: Error[] = [];
    const db = createDatabase(database.url, { max: 2, applicationName: "broken-in-trx", onConnectionLost: (error) => lost.push(error) });
    try {
      const inTransaction = db.transaction().execute(async (trx) => {
        await sql`SELECT 1`.execute(trx);
        assert.equal(await terminate("broken-in-trx"), 1);
        await sql`SELECT pg_sleep(5)`.execute(trx);
      });
      await assert.rejects(inTransaction, (error: unknown) => isDatabaseUnavailable(error));
      await eventually(() => lost.length >= 1);
      const { rows } = await sql<{ ok: number }>`SELECT 1 AS ok`.execute(db);
      assert.deepEqual(rows, [{ ok: 1 }]);
    } finally {
      await db.destroy();
    }
  });

  test("a client checked out of a plain pool with the shared settings", async () => {
    const lost: Error[] = [];
    const pool = new pg.Pool(poolConfig(database.url, { max: 1, applicationName: "broken-checked-out", onConnectionLost: (error) => lost.push(error) }));
    pool.on("error", () => undefined);
    try {
      const client = await pool.connect();
      const ended = ending(client);
      await terminate("broken-checked-out");
      // Idle while checked out: the termination arrives with no query to fail, as an 'error' event.
      await ended;
      assert.ok(lost.length >= 1, "the lost connection was reported");
      await assert.rejects(client.query("SELECT 1"), (error: unknown) => isDatabaseUnavailable(error));
      client.release();
      assert.deepEqual((await pool.query("SELECT 2 AS ok")).rows, [{ ok: 2 }]);
    } finally {
      await pool.end();
    }
  });

  test("pg-boss's pool clients carry the same listener", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(line) });
    const boss = await startQueueClient(database.url, { supervise: false, schedule: false }, { max: 2 }, logger);
    try {
      const pool = (boss.getDb() as unknown as { pool: pg.Pool }).pool;
      const client = await pool.connect();
      // Checked out, as in pg-boss's own transactions: pg-pool holds no error listener on it now.
      assert.equal(client.listenerCount("error"), 1);
      const ended = ending(client);
      await terminate("pgboss");
      await ended;
      client.release();
      assert.ok(lines.some((line) => line.includes("queue database connection lost")));
    } finally {
      await boss.stop({ graceful: false, close: true });
    }
  });

  test("waiting for a pooled connection is bounded by the connect timeout", async () => {
    const db = createDatabase(database.url, { max: 1, connectTimeoutSeconds: 1 });
    try {
      // The only connection stays taken until the wait for another has ended, however long that takes.
      const done = Promise.withResolvers<void>();
      const holding = db.transaction().execute(() => done.promise);
      await assert.rejects(sql`SELECT 1`.execute(db), (error: unknown) => isDatabaseUnavailable(error));
      done.resolve();
      await holding;
    } finally {
      await db.destroy();
    }
  });
});
