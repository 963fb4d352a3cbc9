import { monotonicFactory } from "ulid";
import { MAX_UNFINISHED_UPLOADS, MAX_VIDEO_BYTES, UPLOAD_URL_TTL_SECONDS, type Upload, type UploadRequest, uploadExpiredMessage, uploadUnreadable } from "@caption/shared/api/upload";
import type { Db, DbOrTrx } from "@caption/shared/db/database";
import type { UploadRow } from "@caption/shared/db/tables";
import { findUpload, insertUpload, lockAccountUploads, unfinishedUploads } from "../db/upload-repository.ts";
import type { UploadStore } from "../storage/upload-store.ts";
import type { UrlSigner } from "../storage/signed-url.ts";
import type { Principal } from "./authentication.ts";
import { notFound, ServiceError } from "./service-error.ts";

const nextUlid = monotonicFactory();

/** What an upload URL's signature covers: a key no result file can have (file keys hold no colon). */
export const uploadSigningKey = (uploadId: string) => `upload:${uploadId}`;
export const UPLOADS_ROUTE = "/v1/uploads";

export interface UploadDeps {
  db: Db;
  store: UploadStore;
  signer: UrlSigner;
  /** The API's public origin for this request. */
  baseUrl: string;
  now: Date;
}

export const uploadExpired = (id: string) => new ServiceError("UPLOAD_EXPIRED", uploadExpiredMessage(id));

/**
 * Creates an upload: its row and its empty file in storage, and the signed URL that takes its bytes for
 * an hour. An account holds at most MAX_UNFINISHED_UPLOADS unfinished ones; racing creations count each other.
 */
export async function createUpload(deps: UploadDeps, principal: Principal, request: UploadRequest): Promise<Upload> {
  if (request.size_bytes > MAX_VIDEO_BYTES) {
    throw new ServiceError("VIDEO_TOO_LARGE", `size_bytes is ${request.size_bytes}; the largest video is ${MAX_VIDEO_BYTES} bytes (500 MiB)`);
  }
  const { now } = deps;
  const id = `upl_${nextUlid()}`;
  const expiresAt = new Date(now.getTime() + UPLOAD_URL_TTL_SECONDS * 1000);
  await deps.db.transaction().execute(async (trx) => {
    await lockAccountUploads(trx, principal.accountId);
    const unfinished = await unfinishedUploads(trx, principal.accountId, now);
    if (unfinished.length >= MAX_UNFINISHED_UPLOADS) {
      const first = unfinished[0]?.expires_at ?? expiresAt;
      const retryAfterSeconds = Math.max(1, Math.ceil((new Date(first).getTime() - now.getTime()) / 1000));
      throw new ServiceError(
        "UPLOAD_LIMIT_EXCEEDED",
        `the account has ${unfinished.length} unfinished uploads, the most it may hold; finish or delete one (tus DELETE on its upload_url), or wait for one to expire`,
        { retryAfterSeconds },
      );
    }
    const { size_bytes, filename = null } = request;
    await insertUpload(trx, { id, account_id: principal.accountId, size_bytes, filename, created_at: now, expires_at: expiresAt });
    // In the transaction: a store that refuses leaves no row behind.
    await deps.store.create(id, request.size_bytes, now);
  });
  return {
    id,
    upload_url: `${deps.baseUrl}${UPLOADS_ROUTE}/${id}?${deps.signer.query(uploadSigningKey(id), expiresAt)}`,
    expires_at: expiresAt.toISOString(),
    max_bytes: MAX_VIDEO_BYTES,
  };
}

/**
 * The finished upload a job may read, checked in the job's creating transaction (its row locked against
 * the sweep): another account's or an unknown one is 404, an unfinished one 409, an expired or deleted one 410.
 */
export const submittableUpload = (trx: DbOrTrx, accountId: string, uploadId: string, now: Date): Promise<UploadRow> =>
  readableUpload(trx, accountId, uploadId, now, "upload", { lock: true });

/** The account's finished, unexpired upload, by the rules of `submittableUpload`; `what` names it in a 404. */
export async function readableUpload(
  db: DbOrTrx,
  accountId: string,
  uploadId: string,
  now: Date,
  what: string,
  options: { lock?: boolean } = {},
): Promise<UploadRow> {
  const upload = await findUpload(db, uploadId, options);
  if (!upload || upload.account_id !== accountId) throw notFound(what);
  const unreadable = uploadUnreadable(upload, now);
  if (unreadable) throw new ServiceError(unreadable.code, unreadable.message);
  return upload;
}
