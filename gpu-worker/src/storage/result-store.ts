/** Where finished outputs go. Keys are `<job_id>/<file name>`; the control plane turns them into download URLs. */
export interface ResultStore {
  /** Stores a local file under the job's key and returns the key. Overwrites (retries are idempotent). */
  put(jobId: string, name: string, sourcePath: string, contentType: string, options?: { signal?: AbortSignal }): Promise<string>;
  /**
   * Copies the stored file `<job_id>/<name>` to a local path and returns what it wrote (size and
   * sha256). Throws StoredFileMissing when there is no such file.
   */
  get(jobId: string, name: string, destinationPath: string, options?: { signal?: AbortSignal }): Promise<StoredFileFingerprint>;
  /**
   * Stores the stored file `<fromJobId>/<name>` under `<toJobId>/<options.as ?? name>` too, within the store
   * (a hard link, or a reflink or copy where links cannot be made, on disk; CopyObject in S3): nothing goes
   * over the network from the worker. Returns the new key; StoredFileMissing when there is no such file.
   */
  copy(fromJobId: string, name: string, toJobId: string, options?: { signal?: AbortSignal; as?: string }): Promise<string>;
  /** Removes every stored file of a job; missing files are fine. */
  deleteJob(jobId: string): Promise<void>;
}

export { RESULT_FILES, SOURCE_VIDEO_FILE } from "@caption/shared/storage/result-files";

export interface StoredFileFingerprint {
  bytes: number;
  sha256: string;
}

/** The store holds no file under the key asked for (deleted, expired, or never stored). */
export class StoredFileMissing extends Error {
  constructor(key: string, options?: ErrorOptions) {
    super(`no stored file ${key}`, options);
    this.name = "StoredFileMissing";
  }
}

const SAFE_SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** Job ids and file names become path segments and object keys: nothing that could climb out of the job's folder. */
function checkSegment(what: string, value: string): void {
  if (!SAFE_SEGMENT.test(value)) throw new Error(`unsafe ${what} ${value}`);
}

export function resultKey(jobId: string, name: string): string {
  checkSegment("job id", jobId);
  checkSegment("file name", name);
  return `${jobId}/${name}`;
}

/** The key prefix under which all of a job's files live (`<job_id>/`). */
export function jobKeyPrefix(jobId: string): string {
  checkSegment("job id", jobId);
  return `${jobId}/`;
}
