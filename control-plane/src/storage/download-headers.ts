/**
 * Result files a browser should save rather than display: subtitles (SRT, WebVTT, ASS) and JSON opened
 * in a tab are text a page could sniff or script around; the captioned MP4 plays inline.
 */
const ATTACHMENT = /\.(srt|vtt|ass|json)$/;

/** The Content-Disposition for a result file, or null to leave it inline. */
export function contentDisposition(name: string): string | null {
  return ATTACHMENT.test(name) ? `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, "_")}"` : null;
}

