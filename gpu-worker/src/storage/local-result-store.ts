import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { constants } from "node:fs";
import { copyFile, link, mkdir, open, rename, rm } from "node:fs/promises";
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
    async copy(fromJobId, name, toJobId) {
      const from = path.join(root, resultKey(fromJobId, name));
      const key = resultKey(toJobId, name);
      const dir = path.join(root, toJobId);
      await mkdir(dir, { recursive: true });
      const temp = path.join(dir, `.${name}.${randomUUID()}.tmp`);
      // One file on disk for both jobs: deleting either job's folder leaves the other's name for it.
      await link(from, temp).catch(async (error: unknown) => {
        const code = (error as { code?: unknown }).code;
        if (code === "ENOENT") throw new StoredFileMissing(resultKey(fromJobId, name), { cause: error });
        // Another file system, or one without hard links: a reflink where it can, else a copy.
        await copyFile(from, temp, constants.COPYFILE_FICLONE);
      });
      await rename(temp, path.join(root, key));
      return key;
    },
    async deleteJob(jobId) {
      await rm(path.join(root, jobKeyPrefix(jobId)), { recursive: true, force: true });
    },
  };
}
