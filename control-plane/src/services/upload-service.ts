import { monotonicFactory } from "ulid";
import { FINISHED_UPLOAD_TTL_SECONDS, MAX_UPLOAD_REQUESTS_IN_FLIGHT, MAX_VIDEO_BYTES, UPLOAD_URL_TTL_SECONDS, type Upload, type UploadRequest } from "@caption/shared/api/upload";
import type { Db, DbOrTrx } from "@caption/shared/db/database";
import type { UploadRow } from "@caption/shared/db/tables";
import { findUpload, insertUpload, keptUploads, lockAccountUploads } from "../db/upload-repository.ts";
import type { UploadStore } from "../storage/upload-store.ts";
import type { UrlSigner } from "../storage/signed-url.ts";
import type { Principal } from "./authentication.ts";
import { assertPositiveBalance } from "./positive-balance.ts";
import { assertFitsQuota, assertRoomForUpload, type UploadQuota } from "./upload-quota.ts";
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
  quota: UploadQuota;
  now: Date;
}

/** A request beyond the upload's MAX_UPLOAD_REQUESTS_IN_FLIGHT in this process. */
export const uploadBusy = (id: string) =>
  new ServiceError(
    "RATE_LIMITED",
    `upload ${id} already has ${MAX_UPLOAD_REQUESTS_IN_FLIGHT} requests in progress, the most it may have; one request writes an upload at a time: let them end (HEAD tells the stored offset)`,
    { retryAfterSeconds: 5 },
  );

export const uploadExpired = (id: string) => new ServiceError("UPLOAD_EXPIRED", `upload ${id} has expired and its bytes are deleted; create a new upload`);

/**
 * Creates an upload: its row and its empty file in storage, and the signed URL that takes its bytes for an
 * hour. Storing bytes is paid service: a positive balance is needed. An account holds at most
 * MAX_UNFINISHED_UPLOADS unfinished ones, and its kept uploads stay within the quota; racing creations count
 * each other.
 */
export async function createUpload(deps: UploadDeps, principal: Principal, request: UploadRequest): Promise<Upload> {
  if (request.size_bytes > MAX_VIDEO_BYTES) {
    throw new ServiceError("VIDEO_TOO_LARGE", `size_bytes is ${request.size_bytes}; the largest video is ${MAX_VIDEO_BYTES} bytes (500 MiB)`);
  }
  assertFitsQuota(request.size_bytes, deps.quota);
  const { now } = deps;
  await assertPositiveBalance(deps.db, principal.accountId, "upload videos");
  const id = `upl_${nextUlid()}`;
  const expiresAt = new Date(now.getTime() + UPLOAD_URL_TTL_SECONDS * 1000);
  await deps.db.transaction().execute(async (trx) => {
    await lockAccountUploads(trx, principal.accountId);
    assertRoomForUpload(await keptUploads(trx, principal.accountId, now, FINISHED_UPLOAD_TTL_SECONDS * 1000), request.size_bytes, deps.quota, now);
    const { size_bytes, filename = null } = request;
    const owner = { account_id: principal.accountId, api_key_id: principal.apiKeyId };
    await insertUpload(trx, { id, ...owner, size_bytes, filename, created_at: now, expires_at: expiresAt });
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
export async function submittableUpload(trx: DbOrTrx, accountId: string, uploadId: string, now: Date): Promise<UploadRow> {
  const upload = await findUpload(trx, uploadId, { lock: true });
  if (!upload || upload.account_id !== accountId) throw notFound("upload");
  if (upload.deleted_at !== null) throw uploadExpired(uploadId);
  if (upload.completed_at === null) {
    if (new Date(upload.expires_at) <= now) throw uploadExpired(uploadId);
    throw new ServiceError("UPLOAD_INCOMPLETE", `upload ${uploadId} has not received all of its ${upload.size_bytes} bytes; finish it (tus HEAD tells the offset) and submit again`);
  }
  if (new Date(upload.completed_at).getTime() + FINISHED_UPLOAD_TTL_SECONDS * 1000 <= now.getTime()) throw uploadExpired(uploadId);
  return upload;
}
