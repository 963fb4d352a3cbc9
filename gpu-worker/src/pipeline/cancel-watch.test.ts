import assert from "node:assert/strict";
import { test } from "node:test";
import type { JobStatus } from "@caption/shared/api/job";
import { CANCEL_POLL_MS, watchForCancel } from "./cancel-watch.ts";

/** Lets the status read's promise chain settle (the mocked clock moves only when ticked). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

test("a cancel is acted on at the first status read after it: within one poll interval", async (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  let status: JobStatus = "rendering";
  let reads = 0;
  const watch = watchForCancel(
    async () => {
      reads++;
      return status;
    },
    "job_1",
    new AbortController().signal,
  );
  try {
    t.mock.timers.tick(CANCEL_POLL_MS);
    await settle();
    assert.equal(reads, 1);
    assert.equal(watch.signal.aborted, false);

    status = "canceled";
    t.mock.timers.tick(CANCEL_POLL_MS - 1);
    await settle();
    assert.equal(watch.signal.aborted, false, "no read before the next poll");
    t.mock.timers.tick(1);
    await settle();
    assert.equal(reads, 2);
    assert.equal(watch.signal.aborted, true);
    assert.equal(watch.canceled(), true);
    assert.match((watch.signal.reason as Error).message, /job job_1 was canceled/);
  } finally {
    watch.stop();
  }
});

test("a slow read is not overlapped by the next poll; a failed read is tried again at the next", async (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  const pending: { resolve: (status: JobStatus) => void; reject: (error: Error) => void }[] = [];
  const watch = watchForCancel(() => new Promise((resolve, reject) => pending.push({ resolve, reject })), "job_2", new AbortController().signal);
  try {
    t.mock.timers.tick(3 * CANCEL_POLL_MS);
    await settle();
    assert.equal(pending.length, 1, "one read in flight");
    pending[0]!.reject(new Error("connection lost"));
    await settle();
    t.mock.timers.tick(CANCEL_POLL_MS);
    await settle();
    assert.equal(pending.length, 2);
    pending[1]!.resolve("canceled");
    await settle();
    assert.equal(watch.canceled(), true);
  } finally {
    watch.stop();
  }
});

test("the parent's abort passes through without counting as a cancel; stop ends the reads", async (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  const parent = new AbortController();
  let reads = 0;
  const watch = watchForCancel(
    async () => {
      reads++;
      return "transcribing";
    },
    "job_3",
    parent.signal,
  );
  parent.abort(new Error("worker shutting down"));
  assert.equal(watch.signal.aborted, true);
  assert.equal(watch.canceled(), false);
  watch.stop();
  t.mock.timers.tick(10 * CANCEL_POLL_MS);
  await settle();
  assert.equal(reads, 0);
});

test("stopNow cancels and throws the cancel", () => {
  const watch = watchForCancel(async () => "rendering", "job_4", new AbortController().signal);
  try {
    assert.throws(() => watch.stopNow(), /job job_4 was canceled/);
    assert.equal(watch.canceled(), true);
  } finally {
    watch.stop();
  }
});
