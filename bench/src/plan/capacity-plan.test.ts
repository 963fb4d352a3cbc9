import assert from "node:assert/strict";
import { test } from "node:test";
import { apiConnections, workerConnections } from "@caption/shared/db/connection-budget";
import type { BenchResult, CapacityRow } from "../pipeline/bench-result.ts";
import { parseMix, planCapacity, type PlanInput } from "./capacity-plan.ts";

// Capacity rows shaped as bench/src/pipeline/capacity.ts writes them (figures of docs/performance.md).
const row = (setup: string, kind: CapacityRow["kind"], at60: number, at600: number): CapacityRow => ({ setup, kind, videos_per_hour_60s: at60, videos_per_hour_600s: at600, basis: "" });
const result = {
  capacity: [
    row("this machine, 1 worker, 1 job at a time, libx264, 1080x1920 highlight", "measured", 174, 19.2),
    row("this machine, 1 worker, 2 jobs at a time (WORKER_CONCURRENCY=2), libx264, 1080x1920 highlight", "measured", 185, 19.7),
    row("projection: NVENC GPU (L4/A10 class), 1 worker, 1080x1920 highlight", "projection", 750, 75),
    row("this machine, 1 worker, 1 job at a time, libx264, 1920x1080 highlight", "measured", 168, 18.9),
  ],
  api: [{ name: "GET /v1/jobs/{id}", requests_per_second: 900, p50_ms: 2, p99_ms: 9 }],
} as unknown as BenchResult;
const input = (over: Partial<PlanInput>): PlanInput => ({
  result, videosPerHour: 174, mix: [{ seconds: 60, share: 1 }], setup: "cpu", orientation: "portrait", utilisation: 0.7, peakFactor: 2, minWorkers: 1, ...over,
});

test("174 one-minute videos an hour keep one CPU worker busy: two at 70 %, KEDA up to four", () => {
  const plan = planCapacity(input({}));
  assert.ok(Math.abs(plan.busyWorkers - 1) < 1e-9);
  assert.equal(plan.workers, 2);
  assert.deepEqual(plan.keda, { minReplicaCount: 1, maxReplicaCount: 4, jobsPerReplica: 1 });
  assert.equal(plan.gpus, null);
  assert.equal(plan.api.replicas, 2);
  assert.equal(plan.postgres.connections, 4 * apiConnections() + 4 * workerConnections(1) + 3 + 1, "the migration (1), an admin command (2) and KEDA (1) beside them");
});

test("a mix is weighed by its shares, and lengths between the bench's two are interpolated", () => {
  const plan = planCapacity(input({ videosPerHour: 20, mix: parseMix("60:50,600:50") }));
  const [short, long] = plan.perVideo;
  assert.ok(Math.abs((short?.workerSeconds ?? 0) - 3600 / 174) < 1e-9 && Math.abs((long?.workerSeconds ?? 0) - 3600 / 19.2) < 1e-9);
  assert.ok(Math.abs(plan.busyWorkers - (20 * (3600 / 174 + 3600 / 19.2)) / 2 / 3600) < 1e-9);
  assert.equal(plan.workers, 1);
  const middle = planCapacity(input({ mix: parseMix("330:1") })).perVideo[0]?.workerSeconds ?? 0;
  assert.ok(Math.abs(middle - (3600 / 174 + 3600 / 19.2) / 2) < 1e-9, "330 s is half-way between 60 s and 600 s");
});

test("a worker running two jobs at once takes two per KEDA replica and holds more connections; GPU rows count GPUs", () => {
  const concurrent = planCapacity(input({ setup: "cpu-concurrent", videosPerHour: 1000 }));
  assert.equal(concurrent.concurrency, 2);
  assert.equal(concurrent.keda.jobsPerReplica, 2);
  assert.equal(concurrent.workers, Math.ceil(1000 / 185 / 0.7));
  assert.match(concurrent.postgres.breakdown, new RegExp(`workers × ${workerConnections(2)} `));
  const gpu = planCapacity(input({ setup: "nvenc", videosPerHour: 3000, minWorkers: 0 }));
  assert.equal(gpu.gpus, gpu.workers);
  assert.equal(gpu.workers, Math.ceil(3000 / 750 / 0.7));
  assert.equal(gpu.keda.minReplicaCount, 0);
});

test("API replicas follow the polling load against what one API process served in the bench", () => {
  // 100 000 videos an hour, each uploaded, submitted, polled every 5 s through its 21 s job and downloaded: about 340 requests/s.
  const plan = planCapacity(input({ videosPerHour: 100_000 }));
  assert.ok(plan.api.requestsPerSecond > 300 && plan.api.requestsPerSecond < 400, String(plan.api.requestsPerSecond));
  assert.equal(plan.api.replicas, 2);
  const busy = planCapacity(input({ videosPerHour: 1_000_000 }));
  assert.equal(busy.api.replicas, Math.ceil(busy.api.requestsPerSecond / (900 * 0.7)));
  assert.ok(busy.api.replicas > 2);
});

test("what cannot be planned says why", () => {
  assert.throws(() => planCapacity(input({ setup: "h100" })), /no portrait row for an H100\/H200 without NVENC .* it has: this machine/);
  assert.throws(() => parseMix("60s"), /SECONDS:SHARE pairs/);
  assert.throws(() => parseMix("0:1"), /length above 0/);
  assert.deepEqual(parseMix("60s:80%, 600:20"), [{ seconds: 60, share: 80 }, { seconds: 600, share: 20 }]);
});
