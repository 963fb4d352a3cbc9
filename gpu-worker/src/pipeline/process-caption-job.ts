import path from "node:path";
import { UPLOADS_FOLDER } from "@caption/shared/storage/result-files";
import { biasingOutcome } from "../asr/vocabulary/biasing-outcome.ts";
import { defaultPhoneticLexicon, NO_LEXICON } from "../asr/vocabulary/phonetic-lexicon.ts";
import { createWordPass } from "../words/word-pass.ts";
import { downloadVideo } from "../ingest/download.ts";
import { JOB_ATTRIBUTES } from "../telemetry/attempt-tracing.ts";
import { inspectAndReserve } from "./inspect-source.ts";
import type { AttemptContext } from "./attempt-context.ts";
import { completeWithCharge, storeResults } from "./output-stages.ts";
import { assertSameSource } from "./source-fingerprint.ts";
import { transcribeAndRender } from "./transcribe-and-render.ts";
import { copyUploadedVideo } from "./uploaded-source.ts";
import { segmentsForWords, transcriptDocument } from "./transcript-document.ts";

// Progress bands per stage (0–100); recognition and the render share one.
const STAGES = { ingest: [0, 10], captions: [12, 95], store: [95, 99] } as const;

/**
 * The stages of a caption job (a submitted video): ingest → inspect (+ reserve) → transcribe and render
 * at once → store → charge. Job-level failures are thrown as JobFailure; job-attempt.ts ends the attempt.
 */
export async function runCaptionJob(ctx: AttemptContext): Promise<void> {
  const { deps, job, log, tracing, signal } = ctx;
  tracing.annotate({ [JOB_ATTRIBUTES.engine]: deps.engine.name });

  // 1. Ingest: a download, or an upload's bytes from storage
  const sourcePath = path.join(ctx.dir, "source");
  const download = await tracing.stage("ingest", async () => {
    await ctx.enter("ingesting", STAGES.ingest[0]);
    if (job.upload_id !== null) return copyUploadedVideo(ctx, job.upload_id, sourcePath);
    if (job.video_url === null) throw new Error(`caption job ${job.id} has neither video_url nor upload_id`);
    const download = await downloadVideo(job.video_url, sourcePath, {
      signal,
      allowPrivateAddresses: deps.allowPrivateAddresses,
      logger: log,
      ...deps.limits.download,
    });
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

  // 3. Transcribe and render at once
  const language = job.language ?? (deps.engine.detectsLanguage ? "auto" : (deps.engine.languages[0] ?? "en"));
  const vocabulary = job.vocabulary ?? [];
  // Only a vocabulary needs pronunciations (the dictionary is read once per worker, on the first such job).
  const lexicon = vocabulary.length > 0 ? await defaultPhoneticLexicon() : NO_LEXICON;
  const passOptions = { vocabulary, replacements: job.replacements ?? {}, profanity: job.profanity };
  const pass = await createWordPass(passOptions, lexicon, { seconds: media.durationSeconds, signal });
  const { transcribed, words, video } = await transcribeAndRender(ctx, {
    sourcePath,
    media,
    style,
    seconds,
    language,
    vocabulary,
    pass,
    work,
    band: STAGES.captions,
  }).finally(() => pass.close());
  if (pass.work?.spent) log.warn({ vocabulary_work: pass.work }, "vocabulary work budget spent: the rest of the words were matched by spelling only");
  else if (pass.work) log.info({ vocabulary_work: pass.work }, "vocabulary post-pass done");

  // 4. Store
  const transcript = transcriptDocument({
    jobId: job.id,
    // What the engine heard where it says (SenseVoice), else what was asked for.
    language: transcribed.language ?? language,
    durationSeconds: media.durationSeconds,
    engine: deps.engine.name,
    model: deps.engine.model,
    words: words.map(({ text, start, end, confidence }) => ({ text, start, end, ...(confidence !== undefined ? { confidence } : {}) })),
    segments: segmentsForWords(transcribed.segments, words),
    style,
  });
  const { quality, pictures, storedBytes } = await storeResults(ctx, {
    sourcePath,
    media,
    style,
    video,
    transcript,
    quality: { words, speech: transcribed.speech, vocabulary: await biasingOutcome(deps.engine, vocabulary, lexicon) },
    progress: STAGES.store[0],
    // An uploaded video is in the store already, byte for byte what was hashed: copied there, not sent again.
    ...(job.upload_id === null ? {} : { storedSource: { jobId: UPLOADS_FOLDER, name: job.upload_id } }),
  });

  // 5. Charge and complete, atomically
  await completeWithCharge(ctx, { seconds, video, quality, pictures, storedBytes });
}
