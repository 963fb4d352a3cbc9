import { randomUUID } from "node:crypto";
import type autocannon from "autocannon";
import type { Scenario } from "./run-load.ts";

export const BASELINE = "GET /healthz (baseline)";
const VIDEO = "https://videos.example.com/bench.mp4";
const SUBMISSION = JSON.stringify({ video_url: VIDEO, preset: "karaoke", style: { text_color: "#ffffff", outline: { thickness: 2 } } });

export interface SeededJob {
  key: string;
  id: string;
}

/** Jobs to read back, submitted round-robin over the keys. */
export async function seedJobs(url: string, keys: string[], count: number): Promise<SeededJob[]> {
  const jobs: SeededJob[] = [];
  while (jobs.length < count) {
    const batch = await Promise.all(Array.from({ length: Math.min(20, count - jobs.length) }, async (_, i) => {
      const key = keys[(jobs.length + i) % keys.length] as string;
      const response = await fetch(`${url}/v1/subtitles`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: SUBMISSION });
      const body = (await response.json()) as { id?: string };
      if (response.status !== 202 || !body.id) throw new Error(`seeding a job failed: ${response.status} ${JSON.stringify(body)}`);
      return { key, id: body.id };
    }));
    jobs.push(...batch);
  }
  return jobs;
}

/** The baseline (no database work), reading a job back, and submitting with and without an Idempotency-Key. */
export function apiScenarios(keys: string[], jobs: SeededJob[]): Scenario[] {
  let nextJob = 0;
  let nextKey = 0;
  const withNextKey = (request: autocannon.Request): autocannon.Request => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${keys[nextKey++ % keys.length]}` } });
  const post = { method: "POST" as const, path: "/v1/subtitles", headers: { "content-type": "application/json" }, body: SUBMISSION };
  return [
    { name: BASELINE, expectStatus: 200, request: { method: "GET", path: "/healthz" } },
    {
      name: "GET /v1/jobs/{id}",
      expectStatus: 200,
      request: {
        method: "GET",
        path: "/v1/jobs/x",
        setupRequest: (request) => {
          const job = jobs[nextJob++ % jobs.length] as SeededJob;
          return { ...request, path: `/v1/jobs/${job.id}`, headers: { ...request.headers, authorization: `Bearer ${job.key}` } };
        },
      },
    },
    { name: "POST /v1/subtitles", expectStatus: 202, request: { ...post, setupRequest: withNextKey } },
    {
      name: "POST /v1/subtitles (Idempotency-Key)",
      expectStatus: 202,
      request: { ...post, setupRequest: (request) => withNextKey({ ...request, headers: { ...request.headers, "idempotency-key": randomUUID() } }) },
    },
  ];
}
