import { createReadStream } from "node:fs";
import { Upload } from "tus-js-client";
import type { UploadTicket } from "./api-client.ts";

/** Waits between tries after a dropped connection; each try resumes from the offset the server stored. */
const RETRY_DELAYS_MS = [0, 500, 1000, 2000, 3000, 5000, 5000, 10_000, 10_000];

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
      onError: (error) => reject(error),
    });
    upload.start();
  });
  return { done, abort: () => upload.abort(true) };
}
