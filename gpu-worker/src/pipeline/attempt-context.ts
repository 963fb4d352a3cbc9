import type { Logger } from "pino";
import type { JobStatus } from "@caption/shared/api/job";
import type { Db } from "@caption/shared/db/database";
import type { JobRow } from "@caption/shared/db/tables";
import type { Clock } from "@caption/shared/time/clock";
import type { SpeechDetectors } from "../asr/speech-detectors.ts";
import type { SpeechEngine } from "../asr/speech-engine.ts";
import type { H264Encoder } from "../media/h264-encoder.ts";
import type { VideoDecoder } from "../media/video-decoder.ts";
import type { ResultStore } from "../storage/result-store.ts";
import type { AttemptTracing } from "../telemetry/attempt-tracing.ts";
import type { ProgressReporter } from "./progress-reporter.ts";
import type { JobChanges } from "./cancel-watch.ts";
import type { WorkerLimits } from "./worker-limits.ts";

// What the stages of an attempt work with: the worker's parts and the attempt itself. Kept apart from job-attempt.ts
// (which runs the stages), so that the stages take these types without importing the dispatcher that imports them.

export interface PipelineDeps {
  db: Db;
  store: ResultStore;
  engine: SpeechEngine;
  encoder: H264Encoder;
  decoder: VideoDecoder;
  logger: Logger;
  ffmpegPath: string;
  ffprobePath: string;
  allowPrivateAddresses: boolean;
  /** Scratch space; each job gets its own folder, removed when it ends. */
  workDir: string;
  /** The voice-activity detectors, one per job slot, built before the worker takes jobs; without, each job builds its own. */
  speechDetectors?: SpeechDetectors;
  /** Bounds on how long a job may hold the worker (download, probes, processing). */
  limits: WorkerLimits;
  /** Time for the attempt's throttles, watches and expiry dates: realClock in the worker, driven in tests. */
  clock: Clock;
  /** The jobs' change notifications: a running attempt's cancel watch wakes on them (without, it only polls, slowly). */
  jobChanges?: JobChanges;
  /** Ends the waits for an unavailable database to record an attempt's start or outcome (the worker is going away). */
  stopWaiting?: AbortSignal;
}

/** What every stage of one attempt works with. */
export interface AttemptContext {
  deps: PipelineDeps;
  job: JobRow;
  log: Logger;
  tracing: AttemptTracing;
  /** Aborts on cancel and on shutdown. */
  signal: AbortSignal;
  /** This attempt's scratch folder, removed when it ends. */
  dir: string;
  progress: ProgressReporter;
  /** Moves the job into a stage's status (logged once per status) and its progress on; ends the attempt when the job stopped running. */
  enter(status: Extract<JobStatus, "ingesting" | "transcribing" | "rendering">, progress: number): Promise<void>;
  /** A transition found the job no longer running (canceled): abort the attempt. */
  stopNow(): never;
  /** From here the work is billed: `signal`, also aborted once a video of this length has had its processing time. */
  startBilledWork(durationSeconds: number): AbortSignal;
  /** Keys stored so far; a failed attempt removes the job's files when there are any. */
  stored: string[];
  /** performance.now() when the attempt began. */
  started: number;
}
