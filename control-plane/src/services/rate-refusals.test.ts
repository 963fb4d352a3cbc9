import assert from "node:assert/strict";
import { test } from "node:test";
import type { KeyWithRateCount } from "../db/api-key-repository.ts";
import { createRateRefusals } from "./rate-refusals.ts";

const windowStart = new Date("2026-11-27T08:00:00Z");
const at = (seconds: number) => new Date(windowStart.getTime() + seconds * 1000);
const noWait = { pause: async () => undefined };
const row = (count: number, limit = 5): KeyWithRateCount => ({
  id: "key",
  account_id: "acct",
  scopes: ["subtitles:read"],
  rate_limit_per_minute: limit,
  window_count: count,
  window_start: windowStart,
});

test("only a count over the limit is remembered, and only within its window", async () => {
  const refusals = createRateRefusals(noWait);
  refusals.note("a", row(5));
  refusals.note("b", undefined);
  assert.equal(await refusals.refusing("a", at(1)), undefined, "at the limit is still allowed");
  assert.equal(await refusals.refusing("b", at(1)), undefined);
  refusals.note("a", row(6));
  assert.equal((await refusals.refusing("a", at(59.999)))?.window_count, 6);
  assert.equal(await refusals.refusing("a", at(60)), undefined, "the next minute is counted again");
  assert.equal(await refusals.refusing("a", at(30)), undefined, "and the memory is gone");
  refusals.note("a", row(6));
  assert.equal(await refusals.refusing("a", at(-1)), undefined, "a clock before the window does not refuse");
});

test("at most maxKeys are remembered, the oldest forgotten first", async () => {
  const refusals = createRateRefusals({ maxKeys: 2, ...noWait });
  for (const hash of ["a", "b", "c"]) refusals.note(hash, row(9));
  assert.equal(await refusals.refusing("a", at(1)), undefined);
  assert.ok(await refusals.refusing("b", at(1)));
  assert.ok(await refusals.refusing("c", at(1)));
});

test("a remembered refusal waits before it is answered, at most maxWaiting at once; past that, at once", async () => {
  const releases: (() => void)[] = [];
  const refusals = createRateRefusals({ delayMs: 1000, maxWaiting: 2, pause: () => new Promise<void>((resolve) => releases.push(resolve)) });
  refusals.note("a", row(6));
  let answered = 0;
  const pending = [1, 2, 3].map(() => refusals.refusing("a", at(1)).then((r) => ((answered += 1), r)));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(releases.length, 2, "two wait");
  assert.equal(answered, 1, "the third is answered at once");
  for (const release of releases) release();
  assert.ok((await Promise.all(pending)).every((r) => r?.window_count === 6));
  assert.equal(await refusals.refusing("other", at(1)), undefined, "a key not remembered never waits");
  assert.equal(releases.length, 2);
});
