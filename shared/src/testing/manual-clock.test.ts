import assert from "node:assert/strict";
import { test } from "node:test";
import { manualClock } from "./manual-clock.ts";

test("time stands still until advanced; sleeps and ticks fall due in time order on the way", async () => {
  const clock = manualClock(1000);
  const seen: string[] = [];
  const stop = clock.every(300, () => seen.push(`tick ${clock.now()}`));
  const slept = clock.sleep(500).then(() => seen.push("slept"));
  assert.equal(clock.now(), 1000);
  clock.advance(299);
  assert.deepEqual(seen, []);
  clock.advance(400);
  await slept;
  assert.deepEqual(seen, ["tick 1300", "tick 1600", "slept"]);
  assert.equal(clock.now(), 1699);
  stop();
  clock.advance(1000);
  assert.deepEqual(seen, ["tick 1300", "tick 1600", "slept"]);
});

test("a sleep ends with the signal's reason when it aborts first", async () => {
  const clock = manualClock();
  const controller = new AbortController();
  const sleeping = clock.sleep(1000, controller.signal);
  controller.abort(new Error("stop"));
  await assert.rejects(sleeping, /stop/);
  await assert.rejects(clock.sleep(1, controller.signal), /stop/);
});

test("set moves time to an instant (forward runs what falls due; back runs nothing); date and slept report it", async () => {
  const clock = manualClock(new Date("2030-01-01T00:00:00Z"));
  const slept = clock.sleep(60_000);
  clock.set(new Date("2030-01-01T00:01:00Z"));
  await slept;
  assert.equal(clock.date().toISOString(), "2030-01-01T00:01:00.000Z");
  clock.set(0);
  assert.equal(clock.now(), 0);
  assert.deepEqual(clock.slept, [60_000]);
});

test("with sleepsAdvance, a sleep moves the clock itself and ends at once", async () => {
  const clock = manualClock(1000, { sleepsAdvance: true });
  await clock.sleep(250);
  await clock.sleep(750);
  assert.equal(clock.now(), 2000);
  assert.deepEqual(clock.slept, [250, 750]);
});
