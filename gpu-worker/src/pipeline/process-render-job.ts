import type { AnnotatedWord, QualityReport } from "@caption/shared/api/quality-report";
import type { Word } from "@caption/shared/api/transcript";
import { buildStyledCues } from "../render/styled-cues.ts";
import type { AttemptContext } from "./attempt-context.ts";
import { inspectAndReserve } from "./inspect-source.ts";
import { completeWithCharge, renderCaptions, storeResults, type QualityInput } from "./output-stages.ts";
import { NO_VOCABULARY } from "../asr/vocabulary/biasing-outcome.ts";
import { SOURCE_VIDEO_FILE } from "../storage/result-store.ts";
import { fetchRenderSource } from "./render-source.ts";
import { segmentsForWords, transcriptDocument } from "./transcript-document.ts";

// Progress bands per stage (0–100): the whole job is `rendering`.
const STAGES = { copy: [0, 10], render: [10, 95], store: [95, 99] } as const;

/**
 * The stages of a render job (POST /v1/jobs/{id}/renders): copy the source job's stored video and
 * transcript → inspect (+ reserve) → render → store → charge. No download, no transcription: the
 * words are the job's edited ones or the source transcript's. `queued → rendering → completed`.
 */
/**
 * The quality report's inputs for a render: words that are the source's (same text and times) keep what the
 * source's report said of them; the speech detected in the source still holds, as the video is the same.
 */
function renderedQuality(words: readonly Word[], sourceReport: QualityReport | null): QualityInput {
  const key = (w: Pick<Word, "text" | "start" | "end">) => `${w.start}|${w.end}|${w.text}`;
  const known = new Map((sourceReport?.words ?? []).map((w) => [key(w), w]));
  return {
    words: words.map((word): AnnotatedWord => {
      const before = known.get(key(word));
      return { ...word, ...(before?.original !== undefined ? { original: before.original } : {}), ...(before?.flags.includes("vocabulary") ? { vocabulary: true } : {}) };
    }),
    speech: sourceReport?.speech ?? null,
    vocabulary: sourceReport?.vocabulary ?? NO_VOCABULARY,
  };
}

export async function runRenderJob(ctx: AttemptContext): Promise<void> {
  const { job, log, tracing } = ctx;
  const sourceJobId = job.source_job_id;
  if (sourceJobId === null) throw new Error(`render job ${job.id} names no source job`);

  // 1. Copy the source (a render job's ingest reads the result store, not the internet)
  const source = await tracing.stage("ingest", async () => {
    await ctx.enter("rendering", STAGES.copy[0]);
    const source = await fetchRenderSource(ctx, sourceJobId);
    log.info({ source_job_id: sourceJobId, bytes: source.video.bytes, edited_words: job.words?.length ?? null }, "source copied");
    return source;
  });

  // 2. Inspect, then reserve credit before any heavy work
  const { media, style, seconds } = await tracing.stage("inspect", async () => {
    const inspected = await inspectAndReserve(ctx, source.videoPath, source.video);
    await ctx.progress.report(STAGES.copy[1]);
    return inspected;
  });
  const work = ctx.startBilledWork(media.durationSeconds);

  // 3. Render the edited words, or the source's
  const words = job.words ?? source.transcript.words;
  const cues = buildStyledCues(words, style, media.durationSeconds);
  const video = await renderCaptions(ctx, {
    sourcePath: source.videoPath,
    media,
    style,
    cues,
    seconds,
    work,
    onProgress: (fraction) => ctx.progress.reportWithin(STAGES.render, fraction),
  });

  // 4. Store: the files follow the words rendered; language and engine are the source transcript's
  const transcript = transcriptDocument({
    jobId: job.id,
    language: source.transcript.language,
    durationSeconds: media.durationSeconds,
    engine: source.transcript.engine,
    model: source.transcript.model,
    words,
    segments: job.words === null ? source.transcript.segments : segmentsForWords(source.transcript.segments, words),
    style,
  });
  const { quality, pictures, storedBytes } = await storeResults(ctx, {
    sourcePath: source.videoPath,
    media,
    style,
    video,
    transcript,
    quality: renderedQuality(words, source.report),
    progress: STAGES.store[0],
    // The video is the source job's, byte for byte (checked on copy): the store copies it, no upload.
    storedSource: { jobId: sourceJobId, name: SOURCE_VIDEO_FILE.name },
  });

  // 5. Charge and complete, atomically
  await completeWithCharge(ctx, { seconds, video, quality, pictures, storedBytes });
}
