// KEDA's trigger query as the chart renders it, run against a live pg-boss schema holding jobs in every
// state; the states it counts are the ones docs/operations.md's table says, and a replica's share of them
// is the worker's concurrency.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { sql } from "kysely";
import { PgBoss } from "pg-boss";
import { ensureQueues, PGBOSS_SCHEMA, QUEUES } from "@caption/shared/jobs/catalog";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { REPO_ROOT } from "../fixtures/repo-paths.ts";
import { HELM_AVAILABLE } from "./chart/helm.ts";
import { objectOf, renderChart } from "./chart/render.ts";

interface PostgresTrigger {
  type: string;
  metadata: { query: string; targetQueryValue: string; activationTargetQueryValue: string };
}

/** The rows of docs/operations.md's table of pg-boss states: `| \`state\` | what it is | yes/no |`. */
function documentedStates(): Map<string, boolean> {
  const doc = readFileSync(path.join(REPO_ROOT, "docs", "operations.md"), "utf8");
  return new Map([...doc.matchAll(/^\| `(created|retry|active|completed|failed|cancelled)` \|[^|]*\| (yes|no) \|$/gm)].map((m) => [m[1] ?? "", m[2] === "yes"]));
}

let database: TestDatabase;
let boss: PgBoss;
let trigger: PostgresTrigger;
before(async () => {
  const { objects, run } = await renderChart("values-example.yaml", { worker: { concurrency: 2 } });
  assert.equal(run.exitCode, 0, run.stderr);
  trigger = (objectOf(objects, "ScaledObject") as unknown as { spec: { triggers: PostgresTrigger[] } }).spec.triggers[0] as PostgresTrigger;
  database = await createTestDatabase();
  boss = new PgBoss({ connectionString: database.url, schema: PGBOSS_SCHEMA, supervise: false, schedule: false });
  boss.on("error", () => undefined);
  await boss.start();
  await ensureQueues(boss);
});
after(async () => {
  await boss?.stop({ graceful: false, close: true });
  await database?.dispose();
});

const demand = async () => Number((await sql<{ count: string }>`${sql.raw(trigger.metadata.query)}`.execute(database.db)).rows[0]?.count);
const stateOf = async (id: string) => (await sql<{ state: string }>`SELECT state FROM pgboss.job WHERE id = ${id}`.execute(database.db)).rows[0]?.state;

test("the rendered query counts caption jobs in the states docs/operations.md says, one replica per worker.concurrency of them", { skip: !HELM_AVAILABLE }, async () => {
  assert.equal(trigger.type, "postgresql");
  assert.equal(trigger.metadata.targetQueryValue, "2", "a replica's share is worker.concurrency");
  assert.equal(trigger.metadata.activationTargetQueryValue, "0", "one job wakes a worker from zero");
  const documented = documentedStates();
  assert.deepEqual([...documented.keys()].sort(), ["active", "cancelled", "completed", "created", "failed", "retry"]);
  assert.equal(await demand(), 0);

  // A job in each state, counted or not, as the table says. Each is the only one waiting when it is fetched.
  const send = async (options: { retryLimit?: number } = {}) => (await boss.send(QUEUES.captionJob, { job_id: `job_${Math.random()}` }, options)) ?? "";
  const counted = new Map<string, number>();
  /** `deadLetters`: entries the transition queued in caption-job-dead (a job failed for good leaves one). */
  const expectAfter = async (state: string, id: string, deadLetters = 0) => {
    assert.equal(await stateOf(id), state);
    counted.set(state, (counted.get(state) ?? 0) + (documented.get(state) ? 1 : 0));
    counted.set("dead letters", (counted.get("dead letters") ?? 0) + deadLetters);
    const total = [...counted.values()].reduce((a, b) => a + b, 0);
    assert.equal(await demand(), total, `after a job entered ${state}`);
  };
  const fetched = async () => {
    const [job] = await boss.fetch(QUEUES.captionJob, { batchSize: 1 });
    assert.ok(job);
    return job.id;
  };
  await send().then(fetched).then((id) => expectAfter("active", id));
  await send().then(fetched).then(async (id) => (await boss.fail(QUEUES.captionJob, id), expectAfter("retry", id)));
  await send().then(fetched).then(async (id) => (await boss.complete(QUEUES.captionJob, id), expectAfter("completed", id)));
  // Failed for good: not counted itself, but its dead letter is, until a worker fails the job and releases its credit.
  await send({ retryLimit: 0 }).then(fetched).then(async (id) => (await boss.fail(QUEUES.captionJob, id), expectAfter("failed", id, 1)));
  await send().then(async (id) => (await boss.cancel(QUEUES.captionJob, id), expectAfter("cancelled", id)));
  await send().then((id) => expectAfter("created", id));

  // Other queues' entries are not caption work.
  await boss.send(QUEUES.expireFiles, {});
  await boss.send(QUEUES.captionJobDead, { job_id: "job_dead" });
  const before = [...counted.values()].reduce((a, b) => a + b, 0);
  assert.equal(await demand(), before + 1);
  // With worker.concurrency 2, KEDA asks for ceil(demand / 2) replicas.
  assert.equal(Math.ceil((await demand()) / Number(trigger.metadata.targetQueryValue)), Math.ceil((before + 1) / 2));
});
