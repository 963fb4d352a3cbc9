import assert from "node:assert/strict";
import { test } from "node:test";
import { attemptSchedule, MAX_RETRY_DELAY_MS, RETRY_WINDOW_MS, retryDelayMs } from "./webhook-retry-schedule.ts";

const HOUR = 3_600_000;

test("delays grow ×4 from the base and stop at 12 h", () => {
  const delays = Array.from({ length: 9 }, (_, i) => retryDelayMs(i + 1, 10_000, 0));
  assert.deepEqual(delays, [10_000, 40_000, 160_000, 640_000, 2_560_000, 10_240_000, 40_960_000, 43_200_000, 43_200_000]);
  assert.equal(retryDelayMs(200, 10_000, 0), MAX_RETRY_DELAY_MS, "no overflow however many attempts");
});

test("no retry after an attempt made 24 h or more after the event", () => {
  assert.equal(retryDelayMs(3, 10_000, RETRY_WINDOW_MS), null);
  assert.equal(retryDelayMs(30, 100, RETRY_WINDOW_MS + 1), null);
  assert.equal(retryDelayMs(30, 100, RETRY_WINDOW_MS - 1), MAX_RETRY_DELAY_MS);
});

test("with the default base: nine attempts, the last 27.2 h after the event", () => {
  const schedule = attemptSchedule(10_000);
  assert.equal(schedule.length, 9);
  assert.equal(schedule.at(-1), 97_810_000);
});

// WEBHOOK_RETRY_BASE_SECONDS is any number in (0, 3600]: whatever it is, the last attempt comes at
// least 24 h after the event, and no two attempts are more than 12 h apart.
for (const baseSeconds of [0.001, 0.2, 1, 10, 60, 600, 3600]) {
  test(`a base of ${baseSeconds} s: retries span at least 24 h, at most 12 h apart, growing ×4`, () => {
    const baseMs = baseSeconds * 1000;
    const schedule = attemptSchedule(baseMs);
    const last = schedule.at(-1) ?? 0;
    assert.ok(last >= RETRY_WINDOW_MS, `last attempt ${last / HOUR} h after the event`);
    assert.ok(last < RETRY_WINDOW_MS + MAX_RETRY_DELAY_MS, `but not needlessly later: ${last / HOUR} h`);
    const second = schedule[1] ?? 0;
    assert.equal(second, baseMs, "the first retry waits the base");
    for (let i = 2; i < schedule.length; i++) {
      const gap = (schedule[i] ?? 0) - (schedule[i - 1] ?? 0);
      const previousGap = (schedule[i - 1] ?? 0) - (schedule[i - 2] ?? 0);
      assert.ok(gap <= MAX_RETRY_DELAY_MS);
      assert.equal(gap, Math.min(MAX_RETRY_DELAY_MS, previousGap * 4));
    }
  });
}
