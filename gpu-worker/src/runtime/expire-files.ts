import { sql } from "kysely";
import type { Logger } from "pino";
import type { Db } from "@caption/shared/db/database";
import type { ResultStore } from "../storage/result-store.ts";

/**
 * Deletes the files of jobs past `expires_at` and forgets their keys; the job keeps its state.
 * Runs on a pg-boss schedule; safe to run concurrently (rows are claimed with SKIP LOCKED).
 */
export async function expireResultFiles(db: Db, store: ResultStore, logger: Logger, batchSize = 200): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom("jobs")
        .select("id")
        .where("expires_at", "<=", sql<Date>`now()`)
        .where("files_deleted_at", "is", null)
        .limit(batchSize)
        .forNoKeyUpdate()
        .skipLocked()
        .execute();
      for (const row of rows) await store.deleteJob(row.id);
      if (rows.length > 0) {
        await trx
          .updateTable("jobs")
          .set({ files_deleted_at: sql<Date>`now()`, video_key: null, srt_key: null, transcript_key: null })
          .where("id", "in", rows.map((r) => r.id))
          .execute();
      }
      return rows.length;
    });
    total += expired;
    if (expired < batchSize) break;
  }
  if (total > 0) logger.info({ deleted_jobs: total }, "expired result files deleted");
  return total;
}
