import { MAX_VIDEO_BYTES } from "@caption/shared/api/upload";
import { JobFailure } from "@caption/shared/errors/codes";
import { UPLOADS_FOLDER } from "@caption/shared/storage/result-files";
import { StoredFileMissing } from "../storage/result-store.ts";
import type { AttemptContext } from "./attempt-context.ts";
import type { SourceFingerprint } from "./source-fingerprint.ts";


/**
 * The ingest of an uploaded video: its bytes copied from storage into the attempt's folder, hashed on the
 * way, like a download's. From here the job goes the way a downloaded video goes (container check,
 * ffprobe whitelists, limits, billing). An upload deleted under the job fails it, uncharged.
 */
export async function copyUploadedVideo(ctx: AttemptContext, uploadId: string, destinationPath: string): Promise<SourceFingerprint> {
  const { deps, signal, log } = ctx;
  const copied = await deps.store.get(UPLOADS_FOLDER, uploadId, destinationPath, { signal }).catch((error: unknown) => {
    if (error instanceof StoredFileMissing) throw new JobFailure("UPLOAD_EXPIRED", `upload ${uploadId} was deleted before the job read it; upload the video again`);
    throw error;
  });
  if (copied.bytes > MAX_VIDEO_BYTES) throw new JobFailure("VIDEO_TOO_LARGE", `The video is ${copied.bytes} bytes; the limit is ${MAX_VIDEO_BYTES} bytes`);
  log.info({ upload_id: uploadId, bytes: copied.bytes, sha256: copied.sha256 }, "upload read");
  return copied;
}
