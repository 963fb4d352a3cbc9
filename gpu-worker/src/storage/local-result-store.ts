import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { copyFile, mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { copyToFile } from "./copy-to-file.ts";
import { jobKeyPrefix, resultKey, StoredFileMissing, type ResultStore } from "./result-store.ts";

/** Results on local disk (embedded mode), served by the control plane from the same directory. */
export function createLocalResultStore(root: string): ResultStore {
  return {
    async put(jobId, name, sourcePath) {
      const key = resultKey(jobId, name);
      const dir = path.join(root, jobId);
      await mkdir(dir, { recursive: true });
      // Copy to a temp name, then rename: readers never see a half-written file.
      const temp = path.join(dir, `.${name}.${randomUUID()}.tmp`);
      await copyFile(sourcePath, temp);
      await rename(temp, path.join(root, key));
      return key;
    },
    async get(jobId, name, destinationPath, { signal } = {}) {
      const key = resultKey(jobId, name);
      // Opened first, so a missing file is told apart from a failing copy.
      const file = await open(path.join(root, key)).catch((error: unknown) => {
        throw (error as { code?: unknown }).code === "ENOENT" ? new StoredFileMissing(key, { cause: error }) : error;
      });
      return copyToFile(createReadStream("", { fd: file }), destinationPath, signal);
    },
    async deleteJob(jobId) {
      await rm(path.join(root, jobKeyPrefix(jobId)), { recursive: true, force: true });
    },
  };
}
