import assert from "node:assert/strict";
import { test } from "node:test";
import { median, summarize } from "./scenario-summary.ts";
import type { Measurement } from "./run-load.ts";

const run = (requestsPerSecond: number, p99: number, unexpected = 0, cpu: { api: number; database: number } | null = null) => ({
  name: "GET /v1/jobs/{id}",
  requestsPerSecond,
  latencyMs: { p50: p99 / 4, p90: p99 / 2, p99, max: p99 * 2, mean: p99 / 3 },
  total: requestsPerSecond * 10,
  unexpected,
  statusCodes: { "200": requestsPerSecond * 10 },
  durationSeconds: 10,
  cpuMsPerRequest: cpu,
}) satisfies Measurement & { cpuMsPerRequest: unknown };

test("the median of an odd and an even count", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

test("three runs: medians to quote, min and max as the spread, unexpected answers summed", () => {
  const summary = summarize([
    run(1500, 30, 1, { api: 0.3, database: 0.5 }),
    run(1700, 20, 0, { api: 0.2, database: 0.45 }),
    run(1600, 24, 2, { api: 0.25, database: 0.4 }),
  ]);
  assert.equal(summary.requestsPerSecond, 1600);
  assert.deepEqual(summary.latencyMs, { p50: 6, p99: 24 });
  assert.deepEqual(summary.spread, { requestsPerSecond: [1500, 1700], p99Ms: [20, 30] });
  assert.deepEqual(summary.cpuMsPerRequest, { api: 0.25, database: 0.45 });
  assert.equal(summary.unexpected, 3);
  assert.equal(summary.runs.length, 3);
});

test("no CPU figures when none could be read (a service on another host)", () => {
  assert.equal(summarize([run(1000, 10)]).cpuMsPerRequest, null);
  assert.throws(() => summarize([]), /at least one run/);
});
