import { readFile } from "node:fs/promises";
import path from "node:path";
import { Value } from "@sinclair/typebox/value";
import { QualityReportSchema, type QualityReport } from "@caption/shared/api/quality-report";
import { TranscriptSchema, type Transcript } from "@caption/shared/api/transcript";
import { JobFailure } from "@caption/shared/errors/codes";
import { loadJob } from "../db/job-repository.ts";
import { RESULT_FILES, SOURCE_VIDEO_FILE, StoredFileMissing } from "../storage/result-store.ts";
import type { AttemptContext } from "./attempt-context.ts";
import type { SourceFingerprint } from "./source-fingerprint.ts";

export interface RenderSource {
  /** The source job's original video, copied into the attempt's scratch folder. */
  videoPath: string;
  video: SourceFingerprint;
  /** The source job's transcript: its words (unless the render job has its own), segments, language, engine. */
  transcript: Transcript;
  /** The source job's quality report; null for a job completed before reports were kept. */
  report: QualityReport | null;
}

const gone = (sourceJobId: string) =>
  new JobFailure("SOURCE_NOT_RENDERABLE", `the files of job ${sourceJobId} were deleted before this render could read them; submit the video again`);

/**
 * Copies a render job's source from the result store: the original video (checked against what the
 * source job downloaded), its transcript and its quality report. The source's files cannot expire while this job is
 * unfinished (runtime/expire-files.ts); a file missing anyway fails the job, uncharged.
 */
export async function fetchRenderSource(ctx: AttemptContext, sourceJobId: string): Promise<RenderSource> {
  const { deps, dir, signal } = ctx;
  const source = await loadJob(deps.db, sourceJobId);
  if (!source || source.files_deleted_at !== null || source.source_video_key === null || source.transcript_key === null) throw gone(sourceJobId);
  const fetch = (name: string, localPath: string) =>
    deps.store.get(sourceJobId, name, localPath, { signal }).catch((error: unknown) => {
      throw error instanceof StoredFileMissing ? gone(sourceJobId) : error;
    });

  const videoPath = path.join(dir, "source");
  const video = await fetch(SOURCE_VIDEO_FILE.name, videoPath);
  if (video.sha256 !== source.source_sha256 || video.bytes !== source.source_bytes) {
    // Not the bytes the source job downloaded and was billed on: storage lost them.
    throw new JobFailure("SOURCE_NOT_RENDERABLE", `the stored video of job ${sourceJobId} is damaged (${video.bytes} bytes, ${source.source_bytes} expected); submit the video again`);
  }
  const transcriptPath = path.join(dir, "source-transcript.json");
  await fetch(RESULT_FILES.transcript.name, transcriptPath);
  const transcript: unknown = JSON.parse(await readFile(transcriptPath, "utf8"));
  if (!Value.Check(TranscriptSchema, transcript)) throw new Error(`the stored transcript of job ${sourceJobId} does not match the Transcript schema`);
  let report: QualityReport | null = null;
  if (source.quality_key !== null) {
    const reportPath = path.join(dir, "source-quality.json");
    await fetch(RESULT_FILES.quality.name, reportPath);
    const stored: unknown = JSON.parse(await readFile(reportPath, "utf8"));
    if (!Value.Check(QualityReportSchema, stored)) throw new Error(`the stored quality report of job ${sourceJobId} does not match the QualityReport schema`);
    report = stored;
  }
  return { videoPath, video, transcript, report };
}
