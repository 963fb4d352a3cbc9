import assert from "node:assert/strict";
import { test } from "node:test";
import { manualClock } from "@caption/shared/testing/manual-clock";
import { throughputGuard } from "./throughput-guard.ts";

/** A guard on a clock the test moves by hand. */
function guarded(minBytesPerSecond: number, windowMs: number) {
  const clock = manualClock(1_000);
  const guard = throughputGuard({ minBytesPerSecond, windowMs, now: clock.now });
  return { guard, advance: clock.advance };
}

test("nothing is judged before a whole window has passed", () => {
  const { guard, advance } = guarded(1000, 10_000);
  advance(9_999);
  assert.equal(guard.check(), null);
  advance(1);
  assert.match(guard.check() ?? "", /sent 0 bytes\/s over the last 10 s, below the minimum of 1000 bytes\/s/);
});

test("a steady sender at the minimum passes, a dripping one is stopped one window after it slows", () => {
  const { guard, advance } = guarded(1000, 10_000);
  for (let second = 0; second < 30; second++) {
    advance(1000);
    guard.record(1000);
    assert.equal(guard.check(), null, `second ${second}`);
  }
  // From here on 10 bytes a second: the window still holds the fast seconds for a while.
  let stoppedAfter = 0;
  for (let second = 1; second <= 20; second++) {
    advance(1000);
    guard.record(10);
    if (guard.check() !== null) {
      stoppedAfter = second;
      break;
    }
  }
  assert.equal(stoppedAfter, 1, "one slow second already leaves the window 990 bytes short");
});

test("bursts count for the window they fall in", () => {
  const { guard, advance } = guarded(100, 10_000);
  advance(10_000);
  guard.record(1000);
  assert.equal(guard.check(), null);
  advance(9_999);
  assert.equal(guard.check(), null, "the burst is still inside the window");
  advance(1);
  assert.notEqual(guard.check(), null, "and then it is not");
});

test("a minimum of 0 turns the guard off", () => {
  const { guard, advance } = guarded(0, 1000);
  advance(60_000);
  assert.equal(guard.check(), null);
});
