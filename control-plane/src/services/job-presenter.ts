import type { Job } from "@caption/shared/api/job";
import { burnsCaptions } from "@caption/shared/api/output";
import type { JobRecord } from "../db/job-repository.ts";
import type { ResultLinks } from "../storage/result-links.ts";

/** Progress as the API shows it: one decimal. */
export const presentProgress = (progress: number): number => Math.round(progress * 10) / 10;

/** Maps a job row to the API's Job object; result URLs only while the files exist. */
export async function presentJob(row: JobRecord, links: ResultLinks, baseUrl: string, now: Date): Promise<Job> {
  const expiresAt = row.expires_at ? new Date(row.expires_at) : null;
  const filesLive = row.status === "completed" && expiresAt !== null && expiresAt > now && row.files_deleted_at === null;
  const link = async (key: string | null) => (filesLive && key && expiresAt ? links.url(key, expiresAt, baseUrl) : null);
  const [videoUrl, srtUrl, transcriptUrl, vttUrl, assUrl, qualityUrl] = await Promise.all(
    [row.video_key, row.srt_key, row.transcript_key, row.vtt_key, row.ass_key, row.quality_key].map(link),
  );
  const [posterUrl, stripUrl, webmUrl, movUrl] = await Promise.all(
    [row.poster_key, row.preview_strip_key, row.overlay_webm_key, row.overlay_mov_key].map(link),
  );
  return {
    id: row.id,
    status: row.status,
    progress: presentProgress(row.progress),
    created_at: new Date(row.created_at).toISOString(),
    source_job_id: row.source_job_id,
    expires_at: expiresAt ? expiresAt.toISOString() : null,
    video: videoUrl
      ? {
          url: videoUrl,
          content_type: "video/mp4",
          captioned: burnsCaptions(row.output_kind),
          poster_url: posterUrl ?? null,
          preview_strip_url: stripUrl ?? null,
          overlay_urls: webmUrl && movUrl ? { webm_url: webmUrl, mov_url: movUrl } : null,
        }
      : null,
    subtitles: {
      srt_url: srtUrl ?? null,
      transcript_url: transcriptUrl ?? null,
      vtt_url: vttUrl ?? null,
      ass_url: assUrl ?? null,
      quality_url: qualityUrl ?? null,
    },
    output: { kind: row.output_kind },
    usage: { reserved_seconds: row.reserved_seconds, billed_seconds: row.billed_seconds },
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? row.error_code } : null,
    quality: row.status === "completed" ? row.quality : null,
  };
}
