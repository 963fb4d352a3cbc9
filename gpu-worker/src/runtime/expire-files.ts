import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import { claimExpiredJobs, forgetResultFiles } from "../db/job-repository.ts";
import type { ResultStore } from "../storage/result-store.ts";

/**
 * Deletes the files of jobs past `expires_at` and forgets their keys; the job keeps its state.
 * Runs on a pg-boss schedule; safe to run concurrently (rows are claimed with SKIP LOCKED).
 */
export async function expireResultFiles(db: Db, store: ResultStore, logger: Logger, batchSize = 200): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await db.transaction().execute(async (trx) => {
      const jobIds = await claimExpiredJobs(trx, batchSize);
      for (const jobId of jobIds) await store.deleteJob(jobId);
      await forgetResultFiles(trx, jobIds);
      return jobIds.length;
    });
    total += expired;
    if (expired < batchSize) break;
  }
  if (total > 0) logger.info({ deleted_jobs: total }, "expired result files deleted");
  return total;
}
