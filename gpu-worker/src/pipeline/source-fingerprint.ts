import { JobFailure } from "@caption/shared/errors/codes";
import type { StoredFileFingerprint } from "../storage/result-store.ts";

/** The bytes an attempt downloaded, or copied from the store: the same shape as a stored file's. */
export type SourceFingerprint = StoredFileFingerprint;

/**
 * A retried attempt downloads the URL again. The first inspection recorded what it saw, and the
 * reservation was sized from it: other bytes now (a server answering differently each time) would
 * be rendered on that reservation, so the job stops instead, uncharged. Passes when nothing was
 * recorded yet (the first inspection) or the bytes are the same.
 */
export function assertSameSource(recorded: { sha256: string | null; bytes: number | null }, downloaded: SourceFingerprint): void {
  if (recorded.sha256 === null) return;
  if (recorded.sha256 === downloaded.sha256 && recorded.bytes === downloaded.bytes) return;
  throw new JobFailure(
    "SOURCE_CHANGED",
    `The video at the URL changed between attempts (${recorded.bytes} bytes first, ${downloaded.bytes} bytes now, different content); submit it again once it is stable`,
  );
}
