import { randomUUID } from "node:crypto";
import { copyFile, mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { ResultStore } from "./result-store.ts";

const SAFE = /^[A-Za-z0-9_.-]+$/;

/** Results on local disk (embedded mode), served by the control plane from the same directory. */
export function createLocalResultStore(root: string): ResultStore {
  const dirOf = (jobId: string) => {
    if (!SAFE.test(jobId)) throw new Error(`unsafe job id ${jobId}`);
    return path.join(root, jobId);
  };
  return {
    async put(jobId, name, sourcePath) {
      if (!SAFE.test(name)) throw new Error(`unsafe file name ${name}`);
      const dir = dirOf(jobId);
      await mkdir(dir, { recursive: true });
      // Copy to a temp name, then rename: readers never see a half-written file.
      const temp = path.join(dir, `.${name}.${randomUUID()}.tmp`);
      await copyFile(sourcePath, temp);
      await rename(temp, path.join(dir, name));
      return `${jobId}/${name}`;
    },
    async deleteJob(jobId) {
      await rm(dirOf(jobId), { recursive: true, force: true });
    },
  };
}
