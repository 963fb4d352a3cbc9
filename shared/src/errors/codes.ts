/** Codes an error response of the API carries in `error.code` (docs/api.md "Errors"). */
export const API_ERROR_CODES = [
  "INVALID_REQUEST", "IDEMPOTENCY_KEY_MISMATCH", "UNAUTHORIZED", "INSUFFICIENT_SCOPE", "INSUFFICIENT_CREDITS", "LINK_EXPIRED_OR_INVALID",
  "NOT_FOUND", "METHOD_NOT_ALLOWED", "SOURCE_NOT_RENDERABLE", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "RANGE_NOT_SATISFIABLE",
  "RATE_LIMITED", "CONCURRENCY_LIMIT_EXCEEDED", "SERVICE_UNAVAILABLE", "INTERNAL_ERROR",
  "VIDEO_TOO_LARGE", "UPLOAD_INCOMPLETE", "UPLOAD_EXPIRED", "UPLOAD_LIMIT_EXCEEDED", "UPLOAD_OFFSET_CONFLICT",
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** Codes a failed job carries in `error.code` (docs/api.md "Errors"). */
export const JOB_ERROR_CODES = [
  "INSUFFICIENT_CREDITS", "DURATION_LIMIT_EXCEEDED", "VIDEO_TOO_LONG", "VIDEO_TOO_LARGE", "RESOLUTION_TOO_HIGH",
  "UNSUPPORTED_FORMAT", "NO_AUDIO_TRACK", "REDIRECT_NOT_ALLOWED", "VIDEO_UNREACHABLE", "URL_NOT_ALLOWED",
  "UNSUPPORTED_LANGUAGE", "TRANSCRIPTION_FAILED", "RENDER_FAILED", "SOURCE_CHANGED", "PROCESSING_TIMEOUT", "INTERNAL_ERROR",
  "SOURCE_NOT_RENDERABLE", "UPLOAD_EXPIRED",
] as const;
export type JobErrorCode = (typeof JOB_ERROR_CODES)[number];

/** A job-level failure: the pipeline throws it, the runner records it on the job. */
export class JobFailure extends Error {
  readonly code: JobErrorCode;
  constructor(code: JobErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "JobFailure";
    this.code = code;
  }
}
