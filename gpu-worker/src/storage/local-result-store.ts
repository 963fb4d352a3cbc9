import { randomUUID } from "node:crypto";
import { constants, createReadStream } from "node:fs";
import { copyFile, link, mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { copyToFile } from "./copy-to-file.ts";
import { jobKeyPrefix, resultKey, StoredFileMissing, type ResultStore } from "./result-store.ts";

/** Results on local disk (embedded mode), served by the control plane from the same directory. */
export function createLocalResultStore(root: string): ResultStore {
  /** Makes `<jobId>/<name>` with `write` under a temp name, then renames it: readers never see a half-written file. */
  const storeAs = async (jobId: string, name: string, write: (temp: string) => Promise<void>): Promise<string> => {
    const key = resultKey(jobId, name);
    const dir = path.join(root, jobId);
    await mkdir(dir, { recursive: true });
    const temp = path.join(dir, `.${name}.${randomUUID()}.tmp`);
    await write(temp);
    await rename(temp, path.join(root, key));
    return key;
  };
  return {
    put: (jobId, name, sourcePath) => storeAs(jobId, name, (temp) => copyFile(sourcePath, temp)),
    async get(jobId, name, destinationPath, { signal } = {}) {
      const key = resultKey(jobId, name);
      // Opened first, so a missing file is told apart from a failing copy.
      const file = await open(path.join(root, key)).catch((error: unknown) => {
        throw (error as { code?: unknown }).code === "ENOENT" ? new StoredFileMissing(key, { cause: error }) : error;
      });
      return copyToFile(createReadStream("", { fd: file }), destinationPath, signal);
    },
    async copy(fromJobId, name, toJobId, { as = name } = {}) {
      const fromKey = resultKey(fromJobId, name);
      const from = path.join(root, fromKey);
      return storeAs(toJobId, as, async (temp) => {
        // One file on disk for both jobs: deleting either job's folder leaves the other's name for it.
        await link(from, temp).catch(async (error: unknown) => {
          if ((error as { code?: unknown }).code === "ENOENT") throw new StoredFileMissing(fromKey, { cause: error });
          // Another file system, or one without hard links: a reflink where it can, else a copy.
          await copyFile(from, temp, constants.COPYFILE_FICLONE);
        });
      });
    },
    async deleteJob(jobId) {
      await rm(path.join(root, jobKeyPrefix(jobId)), { recursive: true, force: true });
    },
  };
}
