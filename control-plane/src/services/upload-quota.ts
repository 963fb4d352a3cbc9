import { FINISHED_UPLOAD_TTL_SECONDS, MAX_UNFINISHED_UPLOADS } from "@caption/shared/api/upload";
import type { KeptUpload } from "../db/upload-repository.ts";
import { ServiceError } from "./service-error.ts";

/** What one account's uploads may keep in storage at once (UPLOAD_QUOTA_BYTES, UPLOAD_QUOTA_COUNT). */
export interface UploadQuota {
  bytes: number;
  count: number;
}

/** When a kept upload stops counting: an unfinished one when its URL expires, a finished one 24 h after completion. */
const leavesAt = (upload: KeptUpload): number =>
  upload.completed_at === null ? new Date(upload.expires_at).getTime() : new Date(upload.completed_at).getTime() + FINISHED_UPLOAD_TTL_SECONDS * 1000;

const secondsUntil = (at: number, now: Date) => Math.max(1, Math.ceil((at - now.getTime()) / 1000));

/** An upload larger than the whole quota can never be taken: 413, before anything is looked up. */
export function assertFitsQuota(sizeBytes: number, quota: UploadQuota): void {
  if (sizeBytes > quota.bytes) {
    throw new ServiceError("VIDEO_TOO_LARGE", `size_bytes is ${sizeBytes}; an account's uploads may take at most ${quota.bytes} bytes in all (UPLOAD_QUOTA_BYTES)`);
  }
}

/**
 * Refuses an upload of `sizeBytes` beside the account's kept ones (read under the account's upload lock):
 * 10 unfinished at most, then the quota's count and bytes. Unfinished uploads count by their declared size, so
 * finishing one never goes over. Each refusal is 429 UPLOAD_LIMIT_EXCEEDED with the figures, and Retry-After
 * until enough kept uploads stop counting for this one to fit.
 */
export function assertRoomForUpload(kept: readonly KeptUpload[], sizeBytes: number, quota: UploadQuota, now: Date): void {
  const unfinished = kept.filter((upload) => upload.completed_at === null);
  if (unfinished.length >= MAX_UNFINISHED_UPLOADS) {
    throw new ServiceError(
      "UPLOAD_LIMIT_EXCEEDED",
      `the account has ${unfinished.length} unfinished uploads, the most it may hold; finish or delete one (tus DELETE on its upload_url), or wait for one to expire`,
      { retryAfterSeconds: secondsUntil(Math.min(...unfinished.map(leavesAt)), now) },
    );
  }
  const leaving = kept.map((upload) => ({ at: leavesAt(upload), bytes: upload.size_bytes })).sort((a, b) => a.at - b.at);
  if (kept.length >= quota.count) {
    throw new ServiceError(
      "UPLOAD_LIMIT_EXCEEDED",
      `the account keeps ${kept.length} uploads, the most it may keep (${quota.count}): finished ones count until 24 h after completion, unfinished ones until their URL expires`,
      { retryAfterSeconds: secondsUntil(leaving[kept.length - quota.count]!.at, now) },
    );
  }
  const held = kept.reduce((sum, upload) => sum + upload.size_bytes, 0);
  const excess = held + sizeBytes - quota.bytes;
  if (excess > 0) {
    let freed = 0;
    const freedAt = leaving.find((upload) => (freed += upload.bytes) >= excess)!.at;
    throw new ServiceError(
      "UPLOAD_LIMIT_EXCEEDED",
      `size_bytes ${sizeBytes} and the ${held} bytes of the account's ${kept.length} kept uploads come to ${held + sizeBytes} bytes, over its quota of ${quota.bytes}: finished uploads count until 24 h after completion, unfinished ones by their declared size until their URL expires`,
      { retryAfterSeconds: secondsUntil(freedAt, now) },
    );
  }
}
