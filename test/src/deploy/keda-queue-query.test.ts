import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { PgBoss } from "pg-boss";
import { parse } from "yaml";
import { ensureQueues, PGBOSS_SCHEMA, QUEUES } from "@caption/shared/jobs/catalog";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";

const values = parse(readFileSync(path.join(REPO_ROOT, "helm", "caption-service", "values.yaml"), "utf8")) as { worker: { keda: { query: string } } };
const QUERY = values.worker.keda.query;

let database: TestDatabase;
let boss: PgBoss;
before(async () => {
  database = await createTestDatabase();
  boss = new PgBoss({ connectionString: database.url, schema: PGBOSS_SCHEMA, supervise: false, schedule: false });
  boss.on("error", () => undefined);
  await boss.start();
  await ensureQueues(boss);
});
after(async () => {
  await boss.stop({ graceful: false, close: true });
  await database.dispose();
});

const demand = async () => Number((await sql<{ count: string }>`${sql.raw(QUERY)}`.execute(database.db)).rows[0]?.count);

test("the KEDA query counts caption jobs that need a worker: queued, waiting to retry, running", async () => {
  assert.equal(await demand(), 0);
  for (let i = 0; i < 3; i++) await boss.send(QUEUES.captionJob, { job_id: `job_${i}` });
  await boss.send(QUEUES.expireFiles, {});
  assert.equal(await demand(), 3, "queued caption jobs, not other queues");

  const [running, failing] = await boss.fetch(QUEUES.captionJob, { batchSize: 2 });
  assert.ok(running && failing);
  assert.equal(await demand(), 3, "running jobs keep their workers");
  await boss.fail(QUEUES.captionJob, failing.id);
  assert.equal(await demand(), 3, "a failed attempt waiting for its retry still needs a worker");
  await boss.complete(QUEUES.captionJob, running.id);
  assert.equal(await demand(), 2, "a completed job needs none");
});
