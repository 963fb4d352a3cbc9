import assert from "node:assert/strict";
import { test } from "node:test";
import { formatProgress } from "./progress-bar.ts";

test("draws the bar, the percent, the time and what is left", () => {
  assert.equal(formatProgress(0.5, 60_000, "render karaoke"), `[${"#".repeat(15)}${"-".repeat(15)}]  50% 1:00, ~1:00 left  render karaoke`);
});

test("no estimate before there is a basis for one, nor at the end", () => {
  assert.equal(formatProgress(0.01, 5_000, "x"), `[${"-".repeat(30)}]   1% 0:05  x`);
  assert.equal(formatProgress(1, 125_000, "done"), `[${"#".repeat(30)}] 100% 2:05  done`);
});

test("clamps fractions outside 0..1", () => {
  assert.match(formatProgress(1.7, 0, "x"), /100%/);
  assert.match(formatProgress(-1, 0, "x"), /\s0%/);
});
