import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, type S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { copyToFile } from "./copy-to-file.ts";
import { jobKeyPrefix, resultKey, StoredFileMissing, type ResultStore } from "./result-store.ts";

export interface S3ResultStoreOptions {
  bucket: string;
  /** Prepended to every key: "" or a path ending in "/". */
  prefix: string;
  /** Multipart part size in bytes; default and minimum 5 MiB (larger files go up in parts). */
  partSize?: number;
  /** Parts uploaded at once. */
  queueSize?: number;
}

/**
 * Results in S3-compatible object storage. Files are streamed from disk (multipart above one part),
 * objects are `<prefix><job_id>/<file>`, and the control plane hands out presigned GET URLs for them.
 */
export function createS3ResultStore(client: S3Client, options: S3ResultStoreOptions): ResultStore {
  const { bucket, prefix } = options;
  return {
    async put(jobId, name, sourcePath, contentType, { signal } = {}) {
      const key = resultKey(jobId, name);
      signal?.throwIfAborted();
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: `${prefix}${key}`, Body: createReadStream(sourcePath), ContentType: contentType },
        ...(options.partSize ? { partSize: options.partSize } : {}),
        queueSize: options.queueSize ?? 4,
        // An abandoned multipart upload is aborted, so no invisible parts keep costing storage.
        leavePartsOnError: false,
      });
      const abort = () => void upload.abort().catch(() => undefined);
      signal?.addEventListener("abort", abort, { once: true });
      try {
        await upload.done();
      } finally {
        signal?.removeEventListener("abort", abort);
      }
      return key;
    },
    async get(jobId, name, destinationPath, { signal } = {}) {
      const key = resultKey(jobId, name);
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}${key}` }), { abortSignal: signal }).catch((error: unknown) => {
        throw error instanceof NoSuchKey || (error as { name?: unknown }).name === "NoSuchKey" ? new StoredFileMissing(key, { cause: error }) : error;
      });
      if (!(object.Body instanceof Readable)) throw new Error(`the object store answered ${key} without a body stream`);
      return copyToFile(object.Body, destinationPath, signal);
    },
    async copy(fromJobId, name, toJobId, { signal, as = name } = {}) {
      const from = resultKey(fromJobId, name);
      const key = resultKey(toJobId, as);
      // The server copies the object (up to 5 GB in one request; a source is at most 500 MiB).
      const copySource = `${bucket}/${prefix}${from}`.split("/").map(encodeURIComponent).join("/");
      await client.send(new CopyObjectCommand({ Bucket: bucket, Key: `${prefix}${key}`, CopySource: copySource }), { abortSignal: signal }).catch((error: unknown) => {
        const name = (error as { name?: unknown }).name;
        throw name === "NoSuchKey" || name === "NotFound" ? new StoredFileMissing(from, { cause: error }) : error;
      });
      return key;
    },
    async deleteJob(jobId) {
      const jobPrefix = `${prefix}${jobKeyPrefix(jobId)}`;
      let continuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: jobPrefix, ContinuationToken: continuationToken }));
        // One DeleteObject per file (a job has six): works on every S3-compatible server, unlike DeleteObjects' checksum rules.
        await Promise.all((page.Contents ?? []).map((object) => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: object.Key }))));
        continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (continuationToken);
    },
  };
}
