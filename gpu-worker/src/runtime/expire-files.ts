import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import { expireJobFiles } from "@caption/shared/jobs/job-lifecycle";
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
    const expired = await expireJobFiles(db, BATCH_SIZE, (jobId) => store.deleteJob(jobId), options.afterClaim);
    total += expired.deleted;
    if (expired.claimed < BATCH_SIZE) break;
  }
  if (total > 0) logger.info({ deleted_jobs: total }, "expired result files deleted");
  return total;
}
