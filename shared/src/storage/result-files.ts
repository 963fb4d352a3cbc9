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
 * Result files a job has or has not by its output kind, and the pictures made from its video; served like
 * RESULT_FILES. `uncaptioned` is the video of a job whose output kind is overlay (no burned video).
 */
export const VIDEO_FILES = {
  uncaptioned: { name: "uncaptioned.mp4", contentType: "video/mp4" },
  overlayWebm: { name: "captions-overlay.webm", contentType: "video/webm" },
  overlayMov: { name: "captions-overlay.mov", contentType: "video/quicktime" },
  poster: { name: "poster.jpg", contentType: "image/jpeg" },
  previewStrip: { name: "preview-strip.jpg", contentType: "image/jpeg" },
} as const;

/** Every file a job may have that is linked to clients, each with the Content-Type it is served with. */
export const SERVED_FILES: readonly { name: string; contentType: string }[] = [...Object.values(RESULT_FILES), ...Object.values(VIDEO_FILES)];

/**
 * The downloaded original, kept beside the results for as long as they are (and deleted with them), so
 * the job can be rendered again without downloading or transcribing. Never linked to clients.
 */
export const SOURCE_VIDEO_FILE = { name: "source-video", contentType: "application/octet-stream" } as const;

/** The Content-Type a result file is served with, by its name; undefined for names that are no result file. */
export function resultContentType(name: string): string | undefined {
  return SERVED_FILES.find((file) => file.name === name)?.contentType;
}

/** The folder (key prefix) of uploaded videos in the same storage: `uploads/<upl_id>`, written by the API, read by the worker. */
export const UPLOADS_FOLDER = "uploads";
