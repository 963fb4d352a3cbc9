import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import { claimExpiredJobs, forgetResultFiles, sourcesOfActiveRenders } from "../db/job-repository.ts";
import type { ResultStore } from "../storage/result-store.ts";

const BATCH_SIZE = 200;

/**
 * Deletes the files of jobs past `expires_at` and forgets their keys; the job keeps its state. A job
 * that an unfinished render job renders again keeps its files until that render has finished.
 * Runs on a pg-boss schedule; safe to run concurrently (rows are claimed with SKIP LOCKED). `afterClaim`
 * lets a test commit a render request inside the window between a batch's claim and its check.
 */
export async function expireResultFiles(
  db: Db,
  store: ResultStore,
  logger: Logger,
  options: { afterClaim?: (claimed: readonly string[]) => Promise<void> } = {},
): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await db.transaction().execute(async (trx) => {
      const claimed = await claimExpiredJobs(trx, BATCH_SIZE);
      await options.afterClaim?.(claimed);
      // A render job reads its source's files: they go once it has finished (a later run).
      const held = await sourcesOfActiveRenders(trx, claimed);
      const jobIds = claimed.filter((jobId) => !held.has(jobId));
      for (const jobId of jobIds) await store.deleteJob(jobId);
      await forgetResultFiles(trx, jobIds);
      return { claimed: claimed.length, deleted: jobIds.length };
    });
    total += expired.deleted;
    if (expired.claimed < BATCH_SIZE) break;
  }
  if (total > 0) logger.info({ deleted_jobs: total }, "expired result files deleted");
  return total;
}
