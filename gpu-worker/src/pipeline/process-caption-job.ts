import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import { isTerminal } from "@caption/shared/api/job";
import type { Transcript } from "@caption/shared/api/transcript";
import type { Db } from "@caption/shared/db/database";
import { retryWhileDatabaseUnavailable } from "@caption/shared/db/database-retry";
import { JobFailure } from "@caption/shared/errors/codes";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import type { SpeechEngine } from "../asr/speech-engine.ts";
import { transcribeAudio } from "../asr/transcribe-audio.ts";
import { countAttempt, jobStatus, loadJob, recordInspection } from "../db/job-repository.ts";
import { downloadVideo } from "../ingest/download.ts";
import { decodePcm16kMono } from "../media/audio-pcm.ts";
import { probeMedia } from "../media/ffprobe.ts";
import type { H264Encoder } from "../media/h264-encoder.ts";
import type { VideoDecoder } from "../media/video-decoder.ts";
import { assertSupportedVideo } from "../media/video-limits.ts";
import { buildStyledCues } from "../render/styled-cues.ts";
import { renderCaptionedVideo } from "../render/render-video.ts";
import { RESULT_FILES, type ResultStore } from "../storage/result-store.ts";
import { cuesToSrt } from "../subtitles/srt.ts";
import { JOB_ATTRIBUTES, recordRender, recordTranscription, traceAttempt, type AttemptTracing } from "../telemetry/attempt-tracing.ts";
import { endFailedAttempt } from "./attempt-failure.ts";
import { watchForCancel } from "./cancel-watch.ts";
import { advanceJob, completeJob, reserveForJob } from "./job-transitions.ts";
import { processingDeadline } from "./processing-deadline.ts";
import { progressReporter } from "./progress-reporter.ts";
import { checkRenderedOutput } from "./rendered-duration.ts";
import { assertSameSource } from "./source-fingerprint.ts";
import type { WorkerLimits } from "./worker-limits.ts";

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
  vadModelPath?: string;
  /** Bounds on how long a job may hold the worker (download, probes, processing). */
  limits: WorkerLimits;
  /** Ends the waits for an unavailable database to record an attempt's start or outcome (the worker is going away). */
  stopWaiting?: AbortSignal;
}

export interface AttemptOptions {
  /** Aborted by the queue on shutdown past the grace period. */
  signal: AbortSignal;
  /** The queue will not retry this attempt: an unexpected error must fail the job now. */
  finalAttempt: boolean;
  /** W3C trace context of the submitting request: the attempt's span joins its trace. */
  traceparent?: string;
}

const RETENTION_MS = 24 * 3600 * 1000;
// Progress bands per stage (0–100).
const STAGES = { ingest: [0, 10], transcribe: [12, 45], render: [45, 95], store: [95, 99] } as const;

/**
 * One attempt at a caption job: ingest → inspect (+ reserve) → transcribe → render → store → charge.
 * Every step is safe to repeat, so a retried attempt simply starts over. Job-level failures end the
 * job here; infrastructure errors are rethrown so the queue retries the attempt.
 */
export async function processCaptionJob(deps: PipelineDeps, jobId: string, attempt: AttemptOptions): Promise<void> {
  await traceAttempt(jobId, attempt.traceparent, (tracing) => runAttempt(deps, jobId, attempt, tracing));
}

async function runAttempt(deps: PipelineDeps, jobId: string, attempt: AttemptOptions, tracing: AttemptTracing): Promise<void> {
  const log = deps.logger.child({ job_id: jobId });
  const persist = <T>(write: () => Promise<T>) => retryWhileDatabaseUnavailable(write, { signal: deps.stopWaiting });
  const couldNotStart = (error: unknown): never => {
    log.warn({ err: error }, "attempt could not start; the job will be retried");
    throw error;
  };
  const job = await persist(() => loadJob(deps.db, jobId)).catch(couldNotStart);
  if (!job || isTerminal(job.status)) {
    log.info({ status: job?.status }, "job is not runnable; skipping");
    return;
  }
  await persist(() => countAttempt(deps.db, jobId)).catch(couldNotStart);
  tracing.annotate({ [JOB_ATTRIBUTES.preset]: job.preset, [JOB_ATTRIBUTES.engine]: deps.engine.name, "caption.job.attempt": job.attempts + 1 });
  const dir = await mkdir(deps.workDir, { recursive: true })
    .then(() => mkdtemp(path.join(deps.workDir, `${jobId}-`)))
    .catch(couldNotStart);
  const cancel = watchForCancel(() => jobStatus(deps.db, jobId), jobId, attempt.signal);
  const signal = cancel.signal;
  const stored: string[] = [];
  const started = performance.now();
  let deadline: ReturnType<typeof processingDeadline> | undefined;
  try {
    const progress = progressReporter(deps.db, jobId);
    const enter = async (status: "ingesting" | "transcribing" | "rendering", at: number) => {
      if (!(await advanceJob(deps.db, jobId, { status, progress: at }))) cancel.stopNow();
      log.info({ status }, "stage started");
    };

    // 1. Ingest
    const sourcePath = path.join(dir, "source");
    const download = await tracing.stage("ingest", async () => {
      await enter("ingesting", STAGES.ingest[0]);
      const download = await downloadVideo(job.video_url, sourcePath, { signal, allowPrivateAddresses: deps.allowPrivateAddresses, logger: log, ...deps.limits.download });
      log.info({ bytes: download.bytes, sha256: download.sha256, content_type: download.contentType }, "video downloaded");
      return download;
    });

    // 2. Inspect, then reserve credit before any heavy work
    const { media, style, seconds } = await tracing.stage("inspect", async () => {
      assertSameSource({ sha256: job.source_sha256, bytes: job.source_bytes }, download);
      const media = await probeMedia(sourcePath, { signal, binary: deps.ffprobePath, timeoutMs: deps.limits.probeTimeoutMs });
      if (media.declaredDurationSeconds !== null && Math.abs(media.declaredDurationSeconds - media.durationSeconds) > 1) {
        log.warn({ declared_seconds: media.declaredDurationSeconds, streams_seconds: media.durationSeconds }, "container header disagrees with the streams; the streams count");
      }
      tracing.annotate({ [JOB_ATTRIBUTES.videoDuration]: media.durationSeconds });
      assertSupportedVideo(media);
      if (media.durationSeconds > job.max_duration_seconds) {
        throw new JobFailure("DURATION_LIMIT_EXCEEDED", `the video is ${media.durationSeconds.toFixed(2)} s long, above max_duration_seconds ${job.max_duration_seconds}`);
      }
      const style = resolveStyle({ preset: job.preset, style: job.style, video: { width: media.width, height: media.height } });
      await recordInspection(deps.db, jobId, { media, durationSeconds: media.durationSeconds, resolvedStyle: style, source: download });
      const seconds = Math.ceil(media.durationSeconds);
      const reservation = await reserveForJob(deps.db, jobId, seconds);
      if (reservation === "insufficient") throw new JobFailure("INSUFFICIENT_CREDITS", `the video needs ${seconds} s of credit, more than is available`);
      if (reservation === "not-running") cancel.stopNow();
      await progress.report(STAGES.ingest[1]);
      return { media, style, seconds };
    });
    // From here the work is billed: it may take as long as a video of this length needs, no longer.
    deadline = processingDeadline(media.durationSeconds, deps.limits.deadline);
    const work = AbortSignal.any([signal, deadline.signal]);

    // 3. Transcribe
    const language = job.language ?? (deps.engine.detectsLanguage ? "auto" : (deps.engine.languages[0] ?? "en"));
    const transcribed = await tracing.stage("transcribe", async () => {
      await enter("transcribing", STAGES.transcribe[0]);
      const started = performance.now();
      const transcribed = await transcribeAudio({
        pcm: decodePcm16kMono(sourcePath, { signal: work, binary: deps.ffmpegPath, container: media.container, limitSeconds: media.durationSeconds }),
        engine: deps.engine,
        language,
        vadModelPath: deps.vadModelPath,
        signal: work,
        logger: log,
        onProgress: (done) => progress.reportWithin(STAGES.transcribe, done / media.durationSeconds),
      });
      recordTranscription(deps.engine.name, (performance.now() - started) / 1000, media.durationSeconds);
      log.info({ words: transcribed.words.length, segments: transcribed.segments.length }, "transcribed");
      return transcribed;
    });

    // 4. Render
    const cues = buildStyledCues(transcribed.words, style, media.durationSeconds);
    const render = await tracing.stage("render", async () => {
      await enter("rendering", STAGES.render[0]);
      const started = performance.now();
      const render = await renderCaptionedVideo({
        inputPath: sourcePath,
        outputPath: path.join(dir, RESULT_FILES.video.name),
        cues,
        style,
        media,
        encoder: deps.encoder,
        decoder: deps.decoder,
        signal: work,
        logger: log,
        ffmpegBinary: deps.ffmpegPath,
        onProgress: (fraction) => progress.reportWithin(STAGES.render, fraction),
      });
      recordRender(deps.encoder.encoder, Math.round(media.durationSeconds * media.frameRate), (performance.now() - started) / 1000);
      const renderedSeconds = await checkRenderedOutput(path.join(dir, RESULT_FILES.video.name), { seconds, frameRate: media.frameRate }, { signal: work, binary: deps.ffprobePath, timeoutMs: deps.limits.probeTimeoutMs });
      return { ...render, renderedSeconds };
    });

    // 5. Store
    await tracing.stage("store", async () => {
      await progress.report(STAGES.store[0]);
      const srtPath = path.join(dir, RESULT_FILES.srt.name);
      await writeFile(srtPath, cuesToSrt(cues), "utf8");
      const transcript: Transcript = {
        job_id: jobId,
        language: job.language ?? language,
        duration: media.durationSeconds,
        engine: deps.engine.name,
        model: deps.engine.model,
        words: transcribed.words,
        segments: transcribed.segments,
        preset: style.preset,
        style,
      };
      const transcriptPath = path.join(dir, RESULT_FILES.transcript.name);
      await writeFile(transcriptPath, JSON.stringify(transcript), "utf8");
      for (const file of [RESULT_FILES.video, RESULT_FILES.srt, RESULT_FILES.transcript]) {
        signal.throwIfAborted();
        stored.push(await deps.store.put(jobId, file.name, path.join(dir, file.name), file.contentType, { signal }));
      }
    });

    // 6. Charge and complete, atomically
    const outcome = await tracing.stage("charge", () =>
      completeJob(deps.db, jobId, {
        videoKey: `${jobId}/${RESULT_FILES.video.name}`,
        srtKey: `${jobId}/${RESULT_FILES.srt.name}`,
        transcriptKey: `${jobId}/${RESULT_FILES.transcript.name}`,
        expiresAt: new Date(Date.now() + RETENTION_MS),
      }),
    );
    if (outcome === "not-running") {
      // Canceled meanwhile: remove the outputs. Completed by another attempt: they are the same files.
      if ((await jobStatus(deps.db, jobId)) === "canceled") await deps.store.deleteJob(jobId);
      log.info("job ended elsewhere before this attempt completed");
      return;
    }
    log.info({ billed_seconds: seconds, rendered_seconds: render.renderedSeconds, frames_drawn: render.framesDrawn, ms: Math.round(performance.now() - started), stage_ms: tracing.stageMs }, "job completed");
  } catch (error) {
    tracing.fail(error);
    await endFailedAttempt(deps, jobId, error, { canceled: cancel.canceled(), shutdown: attempt.signal.aborted, finalAttempt: attempt.finalAttempt, storedFiles: stored.length > 0, log, persist });
  } finally {
    deadline?.clear();
    cancel.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
