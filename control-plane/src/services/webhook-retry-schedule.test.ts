import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_DELIVERY_ATTEMPTS, retryDelayMs, retryWindowMs } from "./webhook-retry-schedule.ts";

test("delays grow ×4 from the base and stop at 12 h", () => {
  const delays = Array.from({ length: MAX_DELIVERY_ATTEMPTS - 1 }, (_, i) => retryDelayMs(i + 1, 10_000));
  assert.deepEqual(delays, [10_000, 40_000, 160_000, 640_000, 2_560_000, 10_240_000, 40_960_000, 43_200_000]);
});

test("no retry after the last attempt", () => {
  assert.equal(retryDelayMs(MAX_DELIVERY_ATTEMPTS, 10_000), null);
});

test("with the default base, retries cover more than 24 hours", () => {
  const hours = retryWindowMs(10_000) / 3_600_000;
  assert.ok(hours > 24, `${hours} h`);
  assert.ok(hours < 28, `${hours} h`);
});
