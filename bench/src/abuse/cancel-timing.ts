import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { spawnService } from "@caption/control-plane/testing";
import {
  audioExtraction,
  audioSecondsExtracted,
  decodingRecognizer,
  isRunning,
  jobProcesses,
  makeJobStateVideos,
  renderFfmpeg,
  type ProcessInfo,
} from "@caption/gpu-worker/testing";
import type { TestHttpsServer } from "@caption/shared/testing/https-server";
import { until } from "@caption/shared/testing/until";
import { atMost, type TargetCheck } from "../targets.ts";

// How long a cancel takes to stop a job's work, in each state a caption job goes through, measured from outside
// as a client sees it: from the moment POST /v1/jobs/{id}/cancel is sent to the moment the last of the job's
// processes (ffmpeg, pocketsphinx) is gone from the worker's process tree, or, for a download, its connection is
// closed. A worker process of its own over the benchmark's service; the states are told from its processes.

export const CANCEL_STATES = ["downloading", "extracting audio", "voice activity detection", "recognizing", "rendering"] as const;
export type CancelState = (typeof CANCEL_STATES)[number];
export interface CancelTiming {
  state: CancelState;
  /** From the cancel request to the job's work gone. */
  seconds: number;
  /** The processes (or connection) that had to go. */
  stopped: string;
}

const TARGET_SECONDS = 1;
const STATE_TIMEOUT_MS = 600_000;
const POLL_MS = 2;

interface Setup {
  url: string;
  databaseUrl: string;
  dataDir: string;
  /** Serves the videos (HTTPS on loopback, the run's CA in NODE_EXTRA_CA_CERTS). */
  files: TestHttpsServer;
  caCertPath: string;
  key: string;
  /** How many times each state is measured. */
  rounds: number;
  /** Jobs queued earlier that no worker was meant to run (the API benchmark's): canceled first, so the worker passes them by. */
  backlog: readonly { id: string; key: string }[];
}

/** Polls (every POLL_MS, to time it closely) until `done` holds; the milliseconds (performance.now()) when it did. */
async function whenDone(what: string, done: () => boolean): Promise<number> {
  const deadline = Date.now() + STATE_TIMEOUT_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${STATE_TIMEOUT_MS} ms`);
    await delay(POLL_MS);
  }
  return performance.now();
}

/** Each state `rounds` times; the worker is started for this and stopped after. */
export async function measureCancels(setup: Setup): Promise<CancelTiming[]> {
  const { files, url, key } = setup;
  for (const job of setup.backlog) await fetch(`${url}/v1/jobs/${job.id}/cancel`, { method: "POST", headers: { authorization: `Bearer ${job.key}` } });
  // The videos of the worker's own test (gpu-worker/src/runtime/cancel-stops-work.test.ts), cached once made.
  const clips = await makeJobStateVideos();
  for (const [name, clip] of Object.entries(clips)) files.serveFile(`/cancel/${name}.mp4`, clip.path, "video/mp4");
  let connectionClosedAt: number | undefined;
  let firstBytesSent = false;
  files.route("/cancel/stalls.mp4", (req, res) => {
    req.socket.once("close", () => (connectionClosedAt = performance.now()));
    res.writeHead(200, { "content-type": "video/mp4", "content-length": String(100 * 2 ** 20) });
    res.write(Buffer.alloc(64 * 1024), () => (firstBytesSent = true));
    return new Promise(() => undefined);
  });

  const worker = spawnService("worker", {
    DATABASE_URL: setup.databaseUrl,
    DATA_DIR: path.join(setup.dataDir, "cancel-worker"),
    ALLOW_PRIVATE_VIDEO_URLS: "true",
    NODE_EXTRA_CA_CERTS: setup.caCertPath,
    ASR_ENGINE: "pocketsphinx",
    WORKER_CONCURRENCY: "1",
    LOG_LEVEL: "info",
    PROCESSING_DEADLINE_BASE_SECONDS: "3600",
  });
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${url}${route}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as { id: string; status: string } };
  };
  const root = worker.child.pid!;
  const reached: Record<CancelState, { video: string; when: (jobId: string) => Promise<unknown> }> = {
    downloading: { video: "stalls", when: () => until("the download's first bytes", () => firstBytesSent, STATE_TIMEOUT_MS) },
    "extracting audio": { video: "quietStart", when: () => until("the audio extraction", () => audioExtraction(root), STATE_TIMEOUT_MS) },
    "voice activity detection": {
      video: "quietStart",
      when: () => until("30 s of audio extracted", () => audioSecondsExtracted(audioExtraction(root)?.pid) >= 30, STATE_TIMEOUT_MS),
    },
    recognizing: { video: "speechFirst", when: () => until("pocketsphinx decoding", () => decodingRecognizer(root), STATE_TIMEOUT_MS) },
    rendering: {
      video: "longRender",
      when: async (jobId) => {
        await until("the rendering stage", async () => (await api("GET", `/v1/jobs/${jobId}`)).body.status === "rendering", STATE_TIMEOUT_MS);
        return until("the render's ffmpeg", () => renderFfmpeg(root), STATE_TIMEOUT_MS);
      },
    },
  };

  /** A job of the state's video, canceled once it is in the state; the time until its work is gone. */
  async function cancelIn(state: CancelState): Promise<CancelTiming> {
    const { video, when } = reached[state];
    connectionClosedAt = undefined;
    firstBytesSent = false;
    const submitted = await api("POST", "/v1/subtitles", { video_url: files.url(`/cancel/${video}.mp4`) });
    if (submitted.status >= 300) throw new Error(`submitting for "${state}" answered ${submitted.status} ${JSON.stringify(submitted.body)}`);
    const jobId = submitted.body.id;
    await when(jobId);
    const working: ProcessInfo[] = jobProcesses(root);
    const sentAt = performance.now();
    const canceled = await api("POST", `/v1/jobs/${jobId}/cancel`);
    if (canceled.body.status !== "canceled") throw new Error(`cancel in "${state}" answered ${canceled.status} ${JSON.stringify(canceled.body)}`);
    const goneAt =
      state === "downloading"
        ? await whenDone("closed download", () => connectionClosedAt !== undefined).then(() => connectionClosedAt!)
        : await whenDone(`the job's processes gone in "${state}"`, () => working.every((p) => !isRunning(p.pid)));
    if (!worker.running()) throw new Error(`the worker exited: ${worker.stderr().slice(-2000)}`);
    const stopped = state === "downloading" ? "the download's connection" : working.map((p) => p.name).join(", ");
    return { state, seconds: Math.round(goneAt - sentAt) / 1000, stopped };
  }

  const timings: CancelTiming[] = [];
  try {
    await worker.waitForLine((line) => line.msg === "worker starting", STATE_TIMEOUT_MS);
    for (let round = 0; round < setup.rounds; round++) {
      for (const state of CANCEL_STATES) {
        timings.push(await cancelIn(state));
        // The worker idle again (its recognizer aside) before the next job.
        await until("an idle worker", () => jobProcesses(root).length === 0, STATE_TIMEOUT_MS);
      }
    }
  } finally {
    await worker.stop();
  }
  return timings;
}

/** The cancel section of the report: each state's times, and the worst against the 1 s target. */
export function reportCancels(timings: readonly CancelTiming[]): TargetCheck {
  console.log("\ncancel: from POST /v1/jobs/{id}/cancel to the last of the job's processes gone (a download: its connection closed)");
  for (const state of CANCEL_STATES) {
    const mine = timings.filter((t) => t.state === state);
    console.log(`  ${state}: ${mine.map((t) => `${t.seconds.toFixed(3)} s`).join(", ")} (${mine[0]?.stopped ?? "nothing"})`);
  }
  const worst = Math.max(...timings.map((t) => t.seconds));
  const check = atMost("worst cancel, from the request to the job's work gone", worst, TARGET_SECONDS, "s");
  console.log(`  ${check.pass ? "PASS" : "FAIL"}  ${check.name}: ${check.measured} ${check.unit} (limit ${check.limit} ${check.unit})`);
  return check;
}
