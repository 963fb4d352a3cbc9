import assert from "node:assert/strict";
import { test } from "node:test";
import type { JobStatus } from "@caption/shared/api/job";
import { CANCEL_FALLBACK_POLL_MS, watchForCancel, type JobChanges } from "./cancel-watch.ts";

/** Lets the status read's promise chain settle (the mocked clock moves only when ticked). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

test("without a change heard of, a cancel is found by the fallback poll: within one poll interval", async (t) => {
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
    t.mock.timers.tick(CANCEL_FALLBACK_POLL_MS);
    await settle();
    assert.equal(reads, 1);
    assert.equal(watch.signal.aborted, false);

    status = "canceled";
    t.mock.timers.tick(CANCEL_FALLBACK_POLL_MS - 1);
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
    t.mock.timers.tick(3 * CANCEL_FALLBACK_POLL_MS);
    await settle();
    assert.equal(pending.length, 1, "one read in flight");
    pending[0]!.reject(new Error("connection lost"));
    await settle();
    t.mock.timers.tick(CANCEL_FALLBACK_POLL_MS);
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
  t.mock.timers.tick(10 * CANCEL_FALLBACK_POLL_MS);
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

/** Change notifications the test sends by hand, as the worker's LISTEN connection would. */
function handChanges(): JobChanges & { notify(jobId: string): void; subscribers(): number } {
  const subscribers = new Map<string, Set<() => void>>();
  return {
    subscribe(jobId, onChange) {
      const set = subscribers.get(jobId) ?? new Set();
      subscribers.set(jobId, set.add(onChange));
      return () => set.delete(onChange);
    },
    notify: (jobId) => subscribers.get(jobId)?.forEach((onChange) => onChange()),
    subscribers: () => [...subscribers.values()].reduce((sum, set) => sum + set.size, 0),
  };
}

test("a change heard of is read at once: a cancel is acted on with no poll, the clock standing still", async (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  let status: JobStatus = "rendering";
  let reads = 0;
  const changes = handChanges();
  const read = async () => {
    reads++;
    return status;
  };
  const watch = watchForCancel(read, "job_5", new AbortController().signal, undefined, changes);
  try {
    changes.notify("job_other");
    changes.notify("job_5");
    await settle();
    assert.equal(reads, 1, "another job's change is not this one's");
    assert.equal(watch.signal.aborted, false);
    status = "canceled";
    changes.notify("job_5");
    await settle();
    assert.equal(reads, 2);
    assert.equal(watch.canceled(), true);
    assert.match((watch.signal.reason as Error).message, /job job_5 was canceled/);
  } finally {
    watch.stop();
  }
  assert.equal(changes.subscribers(), 0, "stop unsubscribes");
});

test("a change heard during a read is read once more after it, never alongside", async (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  const pending: ((status: JobStatus) => void)[] = [];
  const changes = handChanges();
  const watch = watchForCancel(() => new Promise((resolve) => pending.push(resolve)), "job_6", new AbortController().signal, undefined, changes);
  try {
    changes.notify("job_6");
    changes.notify("job_6");
    changes.notify("job_6");
    await settle();
    assert.equal(pending.length, 1, "one read in flight");
    pending[0]!("rendering");
    await settle();
    assert.equal(pending.length, 2, "the changes heard meanwhile make one more read");
    pending[1]!("canceled");
    await settle();
    assert.equal(watch.canceled(), true);
  } finally {
    watch.stop();
  }
});
