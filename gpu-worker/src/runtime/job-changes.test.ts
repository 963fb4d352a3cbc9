import assert from "node:assert/strict";
import { once } from "node:events";
import { after, before, test } from "node:test";
import pino from "pino";
import { startNotificationListener, type NotificationListener } from "@caption/shared/db/notification-listener";
import { JOB_EVENTS_CHANNEL } from "@caption/shared/jobs/catalog";
import { insertQueuedJob } from "@caption/shared/testing/job-rows";
import { manualClock } from "@caption/shared/testing/manual-clock";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { jobStatus } from "../db/job-repository.ts";
import { watchForCancel } from "../pipeline/cancel-watch.ts";
import { jobChangesFrom } from "./job-changes.ts";

// The worker's cancel watch over a real database: the API's cancel is an UPDATE whose trigger
// NOTIFYs, and the watch acts on it with its clock standing still (no poll can have found it).

let database: TestDatabase;
let listener: NotificationListener;

before(async () => {
  database = await createTestDatabase();
  await database.db.insertInto("accounts").values({ id: "acct_cancel", name: "a" }).execute();
  listener = startNotificationListener(database.url, { channels: [JOB_EVENTS_CHANNEL], connectTimeoutSeconds: 5, logger: pino({ level: "silent" }) });
  // Connected (and listening) once a connection handler is called.
  await new Promise<void>((resolve) => {
    const off = listener.onConnected(() => {
      off();
      resolve();
    });
  });
});
after(async () => {
  await listener.close();
  await database.dispose();
});

// A bound on the waits below, so that a watch deaf to notifications fails rather than hangs.
test("a cancel committed in the database reaches a running attempt's watch by NOTIFY, no poll needed", { timeout: 60_000 }, async () => {
  await insertQueuedJob(database.db, { id: "job_running", accountId: "acct_cancel" });
  await insertQueuedJob(database.db, { id: "job_neighbour", accountId: "acct_cancel" });
  await database.db.updateTable("jobs").set({ status: "rendering" }).where("id", "in", ["job_running", "job_neighbour"]).execute();
  const clock = manualClock();
  let firstRead = () => undefined as void;
  const readOnce = new Promise<void>((resolve) => (firstRead = resolve));
  const read = () => {
    firstRead();
    return jobStatus(database.db, "job_running");
  };
  const watch = watchForCancel(read, "job_running", new AbortController().signal, clock, jobChangesFrom(listener));
  try {
    // Another job's change wakes nobody here; this job's progress is read and found running.
    await database.db.updateTable("jobs").set({ status: "canceled" }).where("id", "=", "job_neighbour").execute();
    await database.db.updateTable("jobs").set({ progress: 50 }).where("id", "=", "job_running").execute();
    await readOnce;
    assert.equal(watch.signal.aborted, false);

    // What POST /v1/jobs/{id}/cancel does to a running job's row.
    await database.db.updateTable("jobs").set({ status: "canceled", reserved_seconds: 0 }).where("id", "=", "job_running").execute();
    await once(watch.signal, "abort");
    assert.equal(watch.canceled(), true);
    assert.match((watch.signal.reason as Error).message, /job job_running was canceled/);
  } finally {
    watch.stop();
  }
  assert.equal(listener.subscriptions(), 0, "the watch let go of the listener");
});
