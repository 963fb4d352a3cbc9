import path from "node:path";
import { transcribeAudio } from "../asr/transcribe-audio.ts";
import { downloadVideo } from "../ingest/download.ts";
import { decodePcm16kMono } from "../media/audio-pcm.ts";
import { JOB_ATTRIBUTES, recordTranscription } from "../telemetry/attempt-tracing.ts";
import { inspectAndReserve } from "./inspect-source.ts";
import type { AttemptContext } from "./job-attempt.ts";
import { completeWithCharge, renderCaptions, storeResults } from "./output-stages.ts";
import { assertSameSource } from "./source-fingerprint.ts";
import { transcriptDocument } from "./transcript-document.ts";

// Progress bands per stage (0–100).
const STAGES = { ingest: [0, 10], transcribe: [12, 45], render: [45, 95], store: [95, 99] } as const;

/**
 * The stages of a caption job (a submitted video): ingest → inspect (+ reserve) → transcribe → render →
 * store → charge. Job-level failures are thrown as JobFailure; job-attempt.ts ends the attempt.
 */
export async function runCaptionJob(ctx: AttemptContext): Promise<void> {
  const { deps, job, log, tracing, signal } = ctx;
  tracing.annotate({ [JOB_ATTRIBUTES.engine]: deps.engine.name });

  // 1. Ingest
  const sourcePath = path.join(ctx.dir, "source");
  const download = await tracing.stage("ingest", async () => {
    await ctx.enter("ingesting", STAGES.ingest[0]);
    const download = await downloadVideo(job.video_url, sourcePath, { signal, allowPrivateAddresses: deps.allowPrivateAddresses, logger: log, ...deps.limits.download });
    log.info({ bytes: download.bytes, sha256: download.sha256, content_type: download.contentType }, "video downloaded");
    return download;
  });

  // 2. Inspect, then reserve credit before any heavy work
  const { media, style, seconds } = await tracing.stage("inspect", async () => {
    assertSameSource({ sha256: job.source_sha256, bytes: job.source_bytes }, download);
    const inspected = await inspectAndReserve(ctx, sourcePath, download);
    await ctx.progress.report(STAGES.ingest[1]);
    return inspected;
  });
  // From here the work is billed: it may take as long as a video of this length needs, no longer.
  const work = ctx.startBilledWork(media.durationSeconds);

  // 3. Transcribe
  const language = job.language ?? (deps.engine.detectsLanguage ? "auto" : (deps.engine.languages[0] ?? "en"));
  const transcribed = await tracing.stage("transcribe", async () => {
    await ctx.enter("transcribing", STAGES.transcribe[0]);
    const started = performance.now();
    const transcribed = await transcribeAudio({
      pcm: decodePcm16kMono(sourcePath, { signal: work, binary: deps.ffmpegPath, container: media.container, limitSeconds: media.durationSeconds }),
      engine: deps.engine,
      language,
      vadModelPath: deps.vadModelPath,
      signal: work,
      logger: log,
      onProgress: (done) => ctx.progress.reportWithin(STAGES.transcribe, done / media.durationSeconds),
    });
    recordTranscription(deps.engine.name, (performance.now() - started) / 1000, media.durationSeconds);
    log.info({ words: transcribed.words.length, segments: transcribed.segments.length }, "transcribed");
    return transcribed;
  });

  // 4. Render
  const video = await renderCaptions(ctx, { sourcePath, media, style, words: transcribed.words, seconds, work, band: STAGES.render });

  // 5. Store
  const transcript = transcriptDocument({
    jobId: job.id,
    language: job.language ?? language,
    durationSeconds: media.durationSeconds,
    engine: deps.engine.name,
    model: deps.engine.model,
    words: transcribed.words,
    segments: transcribed.segments,
    style,
  });
  await storeResults(ctx, { sourcePath, cues: video.cues, style, transcript, progress: STAGES.store[0] });

  // 6. Charge and complete, atomically
  await completeWithCharge(ctx, { seconds, video });
}
