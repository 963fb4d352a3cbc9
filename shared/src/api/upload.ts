import { Type, type Static } from "@sinclair/typebox";
import { idPattern } from "./ids.ts";

/** The largest video, uploaded or downloaded (413 or the worker's VIDEO_TOO_LARGE beyond). */
export const MAX_VIDEO_BYTES = 500 * 1024 * 1024;
/** How long an upload URL takes bytes. */
export const UPLOAD_URL_TTL_SECONDS = 3600;
/** How long a finished upload can be submitted (and then is deleted), counted from its completion. */
export const FINISHED_UPLOAD_TTL_SECONDS = 24 * 3600;
/** Unfinished, unexpired uploads an account may hold at once. */
export const MAX_UNFINISHED_UPLOADS = 10;
/** Requests one upload URL may have in progress at once in each API process (one writes, one waits its turn); 429 beyond. */
export const MAX_UPLOAD_REQUESTS_IN_FLIGHT = 2;
/** `upl_` and a ULID. */
export const UPLOAD_ID_PATTERN = idPattern("upl");

export const UploadRequestSchema = Type.Object(
  {
    // No schema maximum: a size over the limit is 413 VIDEO_TOO_LARGE, not a malformed body.
    size_bytes: Type.Integer({ minimum: 1, description: `The file's exact size in bytes; at most ${MAX_VIDEO_BYTES} (500 MiB), else 413 VIDEO_TOO_LARGE` }),
    filename: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: "^[^\\u0000-\\u001f\\u007f/\\\\]+$", description: "The file's name, for your records: no path, no control characters" })),
  },
  { additionalProperties: false, $id: "UploadRequest" },
);
export type UploadRequest = Static<typeof UploadRequestSchema>;

export const UploadSchema = Type.Object(
  {
    id: Type.String({ pattern: UPLOAD_ID_PATTERN, description: "Submit it as upload_id once the bytes are in" }),
    upload_url: Type.String({
      format: "uri",
      description: "Where the bytes go, without an API key: tus 1.0 (HEAD, PATCH, DELETE; resumable) or one PUT of the whole file. Signed for this upload alone until expires_at",
    }),
    expires_at: Type.String({ format: "date-time", description: "The upload URL's end: an upload unfinished by then is deleted" }),
    max_bytes: Type.Integer({ description: "The largest upload the service takes" }),
  },
  { additionalProperties: false, $id: "Upload" },
);
export type Upload = Static<typeof UploadSchema>;
