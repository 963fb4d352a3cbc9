import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { accountBalance, grantCredits } from "../db/credit-ledger.ts";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.ts";
import type { CaptionJobPayload } from "./catalog.ts";
import { advanceJob, cancelJob, claimJob, completeJob, failJob, reserveForJob, submitJob, type CompletedFiles } from "./job-lifecycle.ts";

// One job through the lifecycle both processes share: the API's submit and cancel, the worker's claim,
// reserve, progress and charge, and a cancel that lands mid-work winning over the worker's later moves.

let database: TestDatabase;
const ACCOUNT = "acct_lifecycle";
const OTHER = "acct_other";
before(async () => {
  database = await createTestDatabase();
  await database.db.insertInto("accounts").values([{ id: ACCOUNT, name: "lifecycle" }, { id: OTHER, name: "other" }]).execute();
  await grantCredits(database.db, ACCOUNT, 100);
});
after(() => database.dispose());

const columns = { video_url: "https://videos.example/a.mp4", preset: "classic" as const, language: null, style: "{}", max_duration_seconds: 600, base_url: "https://api.example" };
const files: CompletedFiles = {
  videoKey: "v", srtKey: "s", vttKey: "t", assKey: "a", transcriptKey: "j", sourceVideoKey: "src", storedBytes: 0, qualityKey: "q",
  quality: { cues: 0 } as never, posterKey: null, previewStripKey: null, overlayWebmKey: null, overlayMovKey: null, expiresAt: new Date("2030-01-01T00:00:00Z"),
};

async function submit(id: string, traceparent: string | null = null): Promise<CaptionJobPayload[]> {
  const queued: CaptionJobPayload[] = [];
  const enqueue = async (_trx: unknown, payload: CaptionJobPayload) => void queued.push(payload);
  await database.db.transaction().execute((trx) => submitJob(trx, { ...columns, id, account_id: ACCOUNT, traceparent }, enqueue));
  return queued;
}

test("submit inserts a queued job and queues it, with the trace context only when there is one; a rolled-back submit leaves neither", async () => {
  assert.deepEqual(await submit("job_plain"), [{ job_id: "job_plain" }]);
  assert.deepEqual(await submit("job_traced", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"), [
    { job_id: "job_traced", traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
  ]);
  const row = await database.db.selectFrom("jobs").select(["status", "account_id"]).where("id", "=", "job_plain").executeTakeFirstOrThrow();
  assert.deepEqual(row, { status: "queued", account_id: ACCOUNT });
  await assert.rejects(
    database.db.transaction().execute((trx) =>
      submitJob(trx, { ...columns, id: "job_rolled_back", account_id: ACCOUNT, traceparent: null }, async () => {
        throw new Error("queue refused");
      }),
    ),
    /queue refused/,
  );
  assert.equal(await database.db.selectFrom("jobs").select("id").where("id", "=", "job_rolled_back").executeTakeFirst(), undefined);
});

test("claim, reserve, progress and charge: the reservation becomes the charge", async () => {
  await submit("job_done");
  await claimJob(database.db, "job_done");
  assert.equal(await reserveForJob(database.db, "job_done", 7), "reserved");
  assert.equal(await reserveForJob(database.db, "job_done", 7), "already-reserved", "a retry does not reserve twice");
  assert.equal(await advanceJob(database.db, "job_done", { status: "rendering", progress: 50 }), true);
  assert.equal(await advanceJob(database.db, "job_done", { progress: 10 }), true);
  assert.equal(await completeJob(database.db, "job_done", files), "completed");
  const row = await database.db.selectFrom("jobs").select(["status", "progress", "attempts", "billed_seconds", "reserved_seconds"]).where("id", "=", "job_done").executeTakeFirstOrThrow();
  assert.deepEqual(row, { status: "completed", progress: 100, attempts: 1, billed_seconds: 7, reserved_seconds: 0 });
  assert.equal(await failJob(database.db, "job_done", "INTERNAL_ERROR", "late"), false, "a completed job is not failed");
});

test("cancel releases the reservation, wins over the worker's later moves, and finds no other account's job", async () => {
  await submit("job_canceled");
  assert.equal(await reserveForJob(database.db, "job_canceled", 5), "reserved");
  const before = await accountBalance(database.db, ACCOUNT);
  assert.equal(await cancelJob(database.db, OTHER, "job_canceled"), undefined);
  assert.deepEqual(await cancelJob(database.db, ACCOUNT, "job_canceled"), { id: "job_canceled", status: "canceled" });
  assert.deepEqual(await cancelJob(database.db, ACCOUNT, "job_canceled"), { id: "job_canceled", status: "canceled" }, "a second cancel changes nothing");
  assert.equal((await accountBalance(database.db, ACCOUNT)).available, before.available + 5);
  assert.equal(await advanceJob(database.db, "job_canceled", { status: "rendering", progress: 60 }), false);
  assert.equal(await completeJob(database.db, "job_canceled", files), "not-running");
  assert.equal(await reserveForJob(database.db, "job_canceled", 5), "not-running");
  const row = await database.db.selectFrom("jobs").select(["status", "billed_seconds"]).where("id", "=", "job_canceled").executeTakeFirstOrThrow();
  assert.deepEqual(row, { status: "canceled", billed_seconds: 0 });
});
