import path from "node:path";
import { fileURLToPath } from "node:url";
import { EnvError, type Env } from "../config/env.ts";

/** Where result files live: a local directory (embedded default) or a bucket and key prefix in S3-compatible storage. */
export type StorageLocation = { kind: "local"; root: string } | { kind: "s3"; bucket: string; prefix: string };

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Reads STORAGE_URL: unset → `DATA_DIR/files`; `file:///abs/dir` → that directory;
 * `s3://bucket/optional/prefix` → objects `<prefix>/<job_id>/<file>` in that bucket.
 */
export function parseStorageUrl(env: Pick<Env, "STORAGE_URL" | "DATA_DIR">): StorageLocation {
  const raw = env.STORAGE_URL;
  if (!raw) return { kind: "local", root: path.resolve(env.DATA_DIR, "files") };
  const fail = (why: string) => new EnvError(`invalid environment:\n  STORAGE_URL=${JSON.stringify(raw)}: ${why}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail("not a URL");
  }
  if (url.search || url.hash) throw fail("must not have a query or fragment");
  if (url.protocol === "file:") {
    if (url.host) throw fail("a file URL names a local directory: file:///absolute/path");
    return { kind: "local", root: fileURLToPath(url) };
  }
  if (url.protocol !== "s3:") throw fail("expected file:///dir or s3://bucket/prefix");
  const bucket = url.hostname;
  if (!BUCKET.test(bucket) || url.port || url.username) throw fail("the bucket name must be 3-63 lower-case letters, digits, dots or hyphens");
  // The URL parser has already resolved any . and .. segments.
  const segments = url.pathname.split("/").filter((s) => s !== "").map(decodeURIComponent);
  return { kind: "s3", bucket, prefix: segments.length > 0 ? `${segments.join("/")}/` : "" };
}
