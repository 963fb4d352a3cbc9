import { createS3Client, type S3Env } from "@caption/shared/storage/s3-client";
import type { StorageLocation } from "@caption/shared/storage/storage-location";
import { createLocalResultLinks } from "./local-result-links.ts";
import type { ResultLinks } from "./result-links.ts";
import { createS3ResultLinks } from "./s3-result-links.ts";
import type { UrlSigner } from "./signed-url.ts";

/** Result links for where STORAGE_URL keeps the files: this API's signed /v1/files URLs, or presigned S3 URLs. */
export function createResultLinks(location: StorageLocation, signer: UrlSigner, env: S3Env, now: () => Date): ResultLinks {
  return location.kind === "local" ? createLocalResultLinks(signer) : createS3ResultLinks(createS3Client(env), location, now);
}
