import { createReadStream } from "node:fs";
import { DetailedError, Upload } from "tus-js-client";
import type { Upload as UploadTicket } from "@caption/shared/api/upload";
import { refusal } from "./api-client.ts";

/**
 * Waits between tries after a dropped connection; each try resumes from the offset the server stored. The
 * first wait gives the server time to see the drop and record the bytes that did arrive: asked at once, it
 * could still answer an older offset, and the bytes after it were sent twice.
 */
const RETRY_DELAYS_MS = [500, 1000, 2000, 3000, 5000, 5000, 10_000, 10_000];

export interface UploadHandle {
  done: Promise<void>;
  /** Stops sending and deletes the unfinished upload on the server (tus termination). */
  abort(): Promise<void>;
}

/**
 * Sends the file to the upload's URL over tus 1.0 (HEAD for the offset, then PATCH from there), so a dropped
 * connection resumes where the server stopped storing instead of starting again. The URL carries its own token.
 */
export function uploadFile(file: string, ticket: UploadTicket, onProgress: (sent: number, total: number) => void): UploadHandle {
  let upload: Upload;
  const done = new Promise<void>((resolve, reject) => {
    upload = new Upload(createReadStream(file), {
      uploadUrl: ticket.upload_url,
      retryDelays: RETRY_DELAYS_MS,
      // The ticket is for this run alone: nothing to remember between runs.
      storeFingerprintForResuming: false,
      onProgress,
      onSuccess: () => resolve(),
      onError: (error) => reject(asApiError(error)),
    });
    upload.start();
  });
  return { done, abort: () => upload.abort(true) };
}

/** A refusal the upload URL answered keeps the API's code and message; other errors (no answer at all) pass as they are. */
function asApiError(error: Error): Error {
  if (!(error instanceof DetailedError) || !error.originalResponse) return error;
  const status = error.originalResponse.getStatus();
  return refusal(status, error.originalResponse.getBody(), `the upload was refused with ${status}: ${error.message.split("\n")[0]}`);
}
