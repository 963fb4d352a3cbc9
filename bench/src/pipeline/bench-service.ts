import { mkdir } from "node:fs/promises";
import type { Job } from "@caption/shared/api/job";
import { startTestHttpsServer } from "@caption/shared/testing/https-server";
import { startEmbeddedService, type EmbeddedService } from "@caption/control-plane/testing";
import type { BenchVideo } from "./bench-videos.ts";

const POLL_MS = 250;

export interface BenchService {
  service: EmbeddedService;
  /** The HTTPS URL the service fetches a video from. */
  videoUrl(key: string): string;
}

/**
 * The service as `npm start` runs it (scripts/embedded.ts, embedded PostgreSQL, a worker of
 * `workerConcurrency` jobs at once) in a process of its own, with the videos served over HTTPS on loopback.
 */
export async function withBenchService<T>(
  options: { videos: ReadonlyMap<string, BenchVideo>; dataDir: string; workerConcurrency: number; env?: Record<string, string> },
  run: (bench: BenchService) => Promise<T>,
): Promise<T> {
  const https = await startTestHttpsServer();
  try {
    for (const [key, video] of options.videos) https.serveFile(`/${key}.mp4`, video.path, "video/mp4");
    await mkdir(options.dataDir, { mode: 0o755 });
    const service = await startEmbeddedService({
      entry: "embedded",
      dataDir: options.dataDir,
      env: { LOG_LEVEL: "info", ALLOW_PRIVATE_VIDEO_URLS: "true", NODE_EXTRA_CA_CERTS: https.caCertPath, WORKER_CONCURRENCY: String(options.workerConcurrency), ...options.env },
    });
    try {
      return await run({ service, videoUrl: (key) => https.url(`/${key}.mp4`) });
    } finally {
      await service.stop();
    }
  } finally {
    await https.close();
  }
}

export async function submitJob(service: EmbeddedService, key: string, body: unknown): Promise<string> {
  const response = await fetch(`${service.url}/v1/subtitles`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  const job = (await response.json()) as { id?: unknown };
  if (response.status !== 202 || typeof job.id !== "string") throw new Error(`submission refused: ${response.status} ${JSON.stringify(job)}`);
  return job.id;
}

/** Polls until the job is terminal, every 250 ms, as a brisk client would. */
export async function waitForJob(service: EmbeddedService, key: string, id: string, onProgress: (percent: number) => void): Promise<Job> {
  for (;;) {
    const response = await fetch(`${service.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } });
    const job = (await response.json()) as Job;
    // A 503 says "busy, ask again" (the API waited for a database connection): a loaded machine, not a failed run.
    if (response.status === 503) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      continue;
    }
    if (response.status !== 200) throw new Error(`GET /v1/jobs/${id} → ${response.status} ${JSON.stringify(job)}`);
    onProgress(job.progress);
    if (job.status === "completed" || job.status === "failed" || job.status === "canceled") return job;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
