import type { Env } from "@caption/shared/config/env";
import { createS3Client, type S3Env } from "@caption/shared/storage/s3-client";
import { parseStorageUrl } from "@caption/shared/storage/storage-location";
import { createLocalResultStore } from "./local-result-store.ts";
import type { ResultStore } from "./result-store.ts";
import { createS3ResultStore } from "./s3-result-store.ts";

/** The result store STORAGE_URL names: local disk (default `DATA_DIR/files`) or `s3://bucket/prefix`. */
export function createResultStore(env: Pick<Env, "STORAGE_URL" | "DATA_DIR"> & S3Env): ResultStore {
  const location = parseStorageUrl(env);
  return location.kind === "local" ? createLocalResultStore(location.root) : createS3ResultStore(createS3Client(env), location);
}
