import { FileStore } from "@tus/file-store";
import { S3Store } from "@tus/s3-store";
import { ERRORS, Upload, type DataStore } from "@tus/utils";
import { s3ClientConfig, type S3Env } from "@caption/shared/storage/s3-client";
import type { StorageLocation } from "@caption/shared/storage/storage-location";
import { UPLOADS_FOLDER } from "@caption/shared/storage/result-files";

/** Uploaded bytes in the result storage: the tus data store and what the service does with it beside tus. */
export interface UploadStore {
  datastore: DataStore;
  /** The tus id (the key in storage) of an upload. */
  storageId(uploadId: string): string;
  create(uploadId: string, sizeBytes: number, createdAt: Date): Promise<void>;
  /** Deletes the upload's bytes; bytes already gone are fine. */
  remove(uploadId: string): Promise<void>;
}

/**
 * Local storage: a tus FileStore over the storage root. S3: a tus S3Store on the bucket, under the
 * storage prefix. Expiry is the service's (its rows and clock), not the store's.
 */
export function createUploadStore(location: StorageLocation, env: S3Env): UploadStore {
  const datastore =
    location.kind === "local"
      ? new FileStore({ directory: location.root })
      : new S3Store({ s3ClientConfig: { ...s3ClientConfig(env), bucket: location.bucket } });
  const prefix = location.kind === "local" ? "" : location.prefix;
  const storageId = (uploadId: string) => `${prefix}${UPLOADS_FOLDER}/${uploadId}`;
  return {
    datastore,
    storageId,
    async create(uploadId, sizeBytes, createdAt) {
      await datastore.create(new Upload({ id: storageId(uploadId), size: sizeBytes, offset: 0, creation_date: createdAt.toISOString() }));
    },
    async remove(uploadId) {
      await datastore.remove(storageId(uploadId)).catch((error: unknown) => {
        if (!isGone(error)) throw error;
      });
    },
  };
}

const isGone = (error: unknown) => error === ERRORS.FILE_NOT_FOUND || error === ERRORS.FILE_NO_LONGER_EXISTS || (error as { code?: unknown }).code === "ENOENT";
