import assert from "node:assert/strict";
import { once } from "node:events";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import { PgBoss } from "pg-boss";
import pino from "pino";
import { pgBossAdapter } from "../db/database.ts";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.ts";
import { CAPTION_QUEUE_OPTIONS, ensureQueues, PGBOSS_SCHEMA, QUEUES } from "./catalog.ts";
import { startQueueClient } from "./queue-client.ts";

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.dispose());

test("a caption queue created by an older release, without notify, gets it", async () => {
  const boss = new PgBoss({ connectionString: database.url, schema: PGBOSS_SCHEMA, supervise: false, schedule: false });
  boss.on("error", () => undefined);
  await boss.start();
  try {
    const { notify: _notify, ...older } = CAPTION_QUEUE_OPTIONS;
    await boss.createQueue(QUEUES.captionJobDead);
    await boss.createQueue(QUEUES.captionJob, older);
    assert.equal((await boss.getQueue(QUEUES.captionJob))?.notify, false);
    await ensureQueues(boss);
    assert.equal((await boss.getQueue(QUEUES.captionJob))?.notify, true);
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
});

test("queueing a caption job NOTIFYs the workers when its transaction commits, and not when it rolls back", { timeout: 30_000 }, async () => {
  const boss = await startQueueClient(database.url, { supervise: false, schedule: false }, { max: 2 }, pino({ level: "silent" }));
  const listener = new pg.Client({ connectionString: database.url });
  await listener.connect();
  try {
    // pg-boss's channel for its schema (plans.notifyChannelSql).
    const channel = (await sql<{ c: string }>`SELECT 'pgboss_' || left(encode(sha224(${PGBOSS_SCHEMA}::bytea), 'hex'), 24) AS c`.execute(database.db)).rows[0]!.c;
    await listener.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    const heard: string[] = [];
    listener.on("notification", (message) => heard.push(message.payload ?? ""));

    await database.db
      .transaction()
      .execute(async (trx) => {
        await boss.send(QUEUES.captionJob, { job_id: "job_rolled_back" }, { db: pgBossAdapter(trx) });
        throw new Error("roll back");
      })
      .catch(() => undefined);
    const committed = once(listener, "notification");
    await database.db.transaction().execute(async (trx) => {
      await boss.send(QUEUES.captionJob, { job_id: "job_committed" }, { db: pgBossAdapter(trx) });
    });
    await committed;
    // A round trip on the listening connection delivers anything still pending before it answers.
    await listener.query("SELECT 1");
    assert.deepEqual(heard, [QUEUES.captionJob]);
  } finally {
    await listener.end();
    await boss.stop({ graceful: false, close: true });
  }
});
