import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import { ACCOUNTS, applyToModel, bind, cloneModel, recomputeBalance, stepArb, type BoundOp, type Model, type Settlement, type Step } from "../testing/ledger-model.ts";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.ts";
import { accountBalance, grantCredits, reserveCredits, settleReservation, type Balance } from "./credit-ledger.ts";
import type { LedgerRow } from "./tables.ts";
import { ACTIVE_STATUSES } from "../api/job.ts";

// Property: whatever order submit/reserve/charge/release/cancel/grant arrive in, sequentially or
// racing, the ledger agrees with a TypeScript model and its balance never goes negative.

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.dispose());

async function execute(op: BoundOp): Promise<unknown> {
  const db = database.db;
  switch (op.kind) {
    case "skip":
      return "skipped";
    case "submit":
      await db.insertInto("jobs").values({
        id: op.jobId, account_id: op.account, status: "queued", video_url: "https://videos.example/a.mp4",
        preset: "classic", language: null, style: "{}", max_duration_seconds: 600,
      }).execute();
      return "submitted";
    case "grant":
      await grantCredits(db, op.account, op.seconds);
      return "granted";
    case "reserve":
      return db.transaction().execute((trx) => reserveCredits(trx, op.account, op.jobId, op.seconds));
    case "settle":
      return settleReservation(db, op.jobId, op.as);
    case "cancel":
      // Job row locked, reservation released, job terminal, in one transaction. FOR NO KEY UPDATE,
      // because the bare settlements here do not lock the job first: a bare charge racing a
      // FOR UPDATE holder deadlocks in its foreign-key check (the callers all lock the job first).
      return db.transaction().execute(async (trx) => {
        const job = await trx.selectFrom("jobs").select("status").where("id", "=", op.jobId).forNoKeyUpdate().executeTakeFirstOrThrow();
        if (job.status === "canceled") return 0;
        const released = await settleReservation(trx, op.jobId, "release");
        await trx.updateTable("jobs").set({ status: "canceled" }).where("id", "=", op.jobId).execute();
        return released;
      });
  }
}

function* permutations(n: number, prefix: number[] = []): Generator<number[]> {
  if (prefix.length === n) yield prefix;
  for (let i = 0; i < n; i++) if (!prefix.includes(i)) yield* permutations(n, [...prefix, i]);
}

interface LedgerState { rows: LedgerRow[]; canceled: Set<string>; balances: Map<string, Balance>; activeJobs: Map<string, { counted: number; actual: number }> }

async function readLedger(model: Model): Promise<LedgerState> {
  const rows = await database.db.selectFrom("credit_ledger").selectAll().where("account_id", "in", model.accounts).orderBy("id").execute();
  const canceled = await database.db.selectFrom("jobs").select("id").where("account_id", "in", model.accounts).where("status", "=", "canceled").execute();
  const balances = new Map<string, Balance>();
  for (const account of model.accounts) balances.set(account, await accountBalance(database.db, account));
  const activeJobs = new Map<string, { counted: number; actual: number }>();
  for (const account of model.accounts) {
    const { active_jobs: counted } = await database.db.selectFrom("accounts").select("active_jobs").where("id", "=", account).executeTakeFirstOrThrow();
    const actual = await database.db.selectFrom("jobs").select((eb) => eb.fn.countAll<string>().as("n")).where("account_id", "=", account).where("status", "in", ACTIVE_STATUSES).executeTakeFirstOrThrow();
    activeJobs.set(account, { counted, actual: Number(actual.n) });
  }
  return { rows, canceled: new Set(canceled.map((r) => r.id)), balances, activeJobs };
}

/** The invariants that hold whatever happened. */
function assertInvariants(state: LedgerState, model: Model): void {
  for (const account of model.accounts) {
    const balance = state.balances.get(account) as Balance;
    assert.deepEqual(balance, recomputeBalance(state.rows, account), `accountBalance of ${account} disagrees with the ledger rows`);
    assert.ok(balance.available >= 0, `available went negative: ${JSON.stringify(balance)}`);
    const active = state.activeJobs.get(account);
    assert.equal(active?.counted, active?.actual, `${account}: the account row counts ${active?.counted} unfinished jobs, there are ${active?.actual}`);
  }
  const byJob = Map.groupBy(state.rows.filter((r) => r.job_id !== null), (r) => r.job_id as string);
  for (const [jobId, rows] of byJob) {
    const reserves = rows.filter((r) => r.kind === "reserve");
    const settlements = rows.filter((r) => r.kind === "charge" || r.kind === "release");
    assert.ok(reserves.length <= 1, `${jobId} reserved twice`);
    assert.ok(settlements.length <= 1, `${jobId} settled twice: ${settlements.map((r) => r.kind).join(", ")}`);
    assert.ok(!(rows.some((r) => r.kind === "charge") && rows.some((r) => r.kind === "release")), `${jobId} both charged and released`);
    for (const settlement of settlements) {
      assert.equal(reserves.length, 1, `${jobId} settled without a reservation`);
      assert.equal(settlement.seconds, reserves[0]?.seconds, `${jobId}: ${settlement.kind} differs from the reserved seconds`);
    }
    const owner = model.jobs.get(jobId)?.account;
    assert.ok(rows.every((r) => r.account_id === owner), `${jobId}: ledger rows on another account`);
  }
}

/** Null when the ledger holds exactly what the model says, else the first difference. */
function differenceFromModel(state: LedgerState, model: Model): string | null {
  for (const account of model.accounts) {
    const granted = state.balances.get(account)?.granted;
    if (granted !== (model.granted.get(account) ?? 0)) return `${account}: granted ${granted}, model ${model.granted.get(account) ?? 0}`;
  }
  for (const row of state.rows) if (row.job_id !== null && !model.jobs.has(row.job_id)) return `row for unknown job ${row.job_id}`;
  for (const [jobId, job] of model.jobs) {
    const reserve = state.rows.find((r) => r.job_id === jobId && r.kind === "reserve");
    const settlement = state.rows.find((r) => r.job_id === jobId && (r.kind === "charge" || r.kind === "release"));
    if (reserve?.seconds !== job.reserved) return `${jobId}: reserved ${reserve?.seconds}, model ${job.reserved}`;
    if (settlement?.kind !== job.settled) return `${jobId}: settled ${settlement?.kind}, model ${job.settled}`;
    if (state.canceled.has(jobId) !== job.canceled) return `${jobId}: canceled ${state.canceled.has(jobId)}, model ${job.canceled}`;
  }
  return null;
}

async function runSteps(steps: Step[]): Promise<void> {
  const accounts = Array.from({ length: ACCOUNTS }, () => `acct_${randomUUID()}`);
  await database.db.insertInto("accounts").values(accounts.map((id) => ({ id, name: "ledger property", concurrency_limit: 1000 }))).execute();
  let model: Model = { accounts, granted: new Map(), jobs: new Map(), order: [] };

  for (const [index, step] of steps.entries()) {
    const ops = step.kind === "parallel" ? step.ops : [step];
    const bound = ops.map((op) => bind(op, model));
    const observed = await Promise.all(bound.map(execute));
    const state = await readLedger(model);
    assertInvariants(state, model);

    // Concurrent ops must be linearizable: some serial order explains every answer and the final ledger.
    let explained: Model | undefined;
    const tried: string[] = [];
    for (const order of permutations(bound.length)) {
      const candidate = cloneModel(model);
      const expected: unknown[] = [];
      for (const i of order) expected[i] = applyToModel(candidate, bound[i] as BoundOp);
      const difference = JSON.stringify(expected) === JSON.stringify(observed) ? differenceFromModel(state, candidate) : `answers ${JSON.stringify(expected)}`;
      if (difference === null) {
        explained = candidate;
        break;
      }
      tried.push(`order ${order.join("")}: ${difference}`);
    }
    assert.ok(explained, `step ${index} ${JSON.stringify(bound)} answered ${JSON.stringify(observed)}; no serial order explains it:\n${tried.join("\n")}`);
    model = explained;
  }
}

describe("credit ledger against a real database", () => {
  test("random interleavings keep every ledger invariant", async () => {
    await fc.assert(fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 30, size: "max" }), runSteps), { numRuns: 50 });
  });

  test("racing reservations never overdraw one balance", async () => {
    const account = `acct_${randomUUID()}`;
    await database.db.insertInto("accounts").values({ id: account, name: "race", concurrency_limit: 1000 }).execute();
    await grantCredits(database.db, account, 100);
    const jobs = Array.from({ length: 10 }, () => `job_${randomUUID()}`);
    await database.db.insertInto("jobs").values(jobs.map((id) => ({
      id, account_id: account, status: "queued" as const, video_url: "https://videos.example/a.mp4", preset: "classic", style: "{}", max_duration_seconds: 600,
    }))).execute();
    const outcomes = await Promise.all(jobs.map((id) => database.db.transaction().execute((trx) => reserveCredits(trx, account, id, 30))));
    assert.equal(outcomes.filter((o) => o === "reserved").length, 3);
    assert.equal(outcomes.filter((o) => o === "insufficient").length, 7);
    assert.deepEqual(await accountBalance(database.db, account), { granted: 100, reserved: 90, consumed: 0, available: 10 });

    const reservedJob = jobs[outcomes.indexOf("reserved")] as string;
    const settled = await Promise.all([settleReservation(database.db, reservedJob, "charge"), settleReservation(database.db, reservedJob, "release"), settleReservation(database.db, reservedJob, "charge")]);
    assert.deepEqual(settled.filter((s) => s > 0), [30], "exactly one of three racing settlements takes effect");
  });

  // How the callers settle (the worker's completeJob/failJob, the API's cancelJob): lock the job
  // row, settle only if the job is not terminal yet, and mark it terminal, in one transaction.
  test("completion racing cancellation leaves the job status and its settlement in agreement", async () => {
    const db = database.db;
    const account = `acct_${randomUUID()}`;
    await db.insertInto("accounts").values({ id: account, name: "finish race", concurrency_limit: 1000 }).execute();
    await grantCredits(db, account, 100);
    const jobs = Array.from({ length: 8 }, () => `job_${randomUUID()}`);
    await db.insertInto("jobs").values(jobs.map((id) => ({
      id, account_id: account, status: "queued" as const, video_url: "https://videos.example/a.mp4", preset: "classic", style: "{}", max_duration_seconds: 600,
    }))).execute();
    for (const id of jobs) assert.equal(await db.transaction().execute((trx) => reserveCredits(trx, account, id, 5)), "reserved");

    const finish = (id: string, as: Settlement, status: "completed" | "canceled") =>
      db.transaction().execute(async (trx) => {
        const job = await trx.selectFrom("jobs").select("status").where("id", "=", id).forUpdate().executeTakeFirstOrThrow();
        if (job.status !== "queued") return 0;
        const settled = await settleReservation(trx, id, as);
        await trx.updateTable("jobs").set({ status, billed_seconds: as === "charge" ? settled : 0 }).where("id", "=", id).execute();
        return settled;
      });
    await Promise.all(jobs.flatMap((id) => [finish(id, "charge", "completed"), finish(id, "release", "canceled")]));

    const rows = await db.selectFrom("credit_ledger").selectAll().where("account_id", "=", account).execute();
    for (const job of await db.selectFrom("jobs").select(["id", "status"]).where("account_id", "=", account).execute()) {
      const settlements = rows.filter((r) => r.job_id === job.id && r.kind !== "reserve").map((r) => r.kind);
      assert.deepEqual(settlements, [job.status === "completed" ? "charge" : "release"], `${job.id} is ${job.status}`);
    }
    const balance = await accountBalance(db, account);
    assert.deepEqual(balance, recomputeBalance(rows, account));
    assert.equal(balance.reserved, 0);
  });
});
