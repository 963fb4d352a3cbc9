import { JobFailure, type JobErrorCode } from "@caption/shared/errors/codes";
import { withoutPaths } from "@caption/shared/errors/redact-paths";
import { FfmpegError } from "./ffmpeg.ts";

/**
 * What a failed ffmpeg/ffprobe run on a source means for the job: the upload's fault (a JobFailure
 * with `code`) when the tool ran and could not read it, crashed on it or missed its deadline; an
 * infrastructure error (rethrown as is, so the attempt is retried) only when the tool could not be
 * started. The message keeps ffmpeg's last line without paths.
 */
export function sourceFailure(error: unknown, code: JobErrorCode, what: string): unknown {
  if (!(error instanceof FfmpegError) || error.notStarted) return error;
  const detail = error.stderrTail.trim().split("\n").at(-1)?.trim() || error.message;
  const reason = error.timedOut ? "took longer than its deadline" : withoutPaths(detail);
  return new JobFailure(code, `${what}: ${reason}`, { cause: error });
}
