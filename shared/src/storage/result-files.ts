/**
 * The files a completed job keeps under its key prefix (`<job_id>/<name>`), with the Content-Type they
 * are stored and served with: the worker writes them, the control plane links and serves them.
 */
export const RESULT_FILES = {
  video: { name: "captioned.mp4", contentType: "video/mp4" },
  srt: { name: "captions.srt", contentType: "application/x-subrip; charset=utf-8" },
  vtt: { name: "captions.vtt", contentType: "text/vtt; charset=utf-8" },
  ass: { name: "captions.ass", contentType: "text/x-ssa; charset=utf-8" },
  transcript: { name: "transcript.json", contentType: "application/json" },
  quality: { name: "quality.json", contentType: "application/json" },
} as const;

/**
 * The downloaded original, kept beside the results for as long as they are (and deleted with them), so
 * the job can be rendered again without downloading or transcribing. Never linked to clients.
 */
export const SOURCE_VIDEO_FILE = { name: "source-video", contentType: "application/octet-stream" } as const;

/** The Content-Type a result file is served with, by its name; undefined for names that are no result file. */
export function resultContentType(name: string): string | undefined {
  return Object.values(RESULT_FILES).find((file) => file.name === name)?.contentType;
}
