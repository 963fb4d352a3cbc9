import type { Logger } from "pino";
import { FINISHED_UPLOAD_TTL_SECONDS } from "@caption/shared/api/upload";
import type { Db } from "@caption/shared/db/database";
import { findUpload, markUploadDeleted, uploadsToDelete } from "../db/upload-repository.ts";
import type { UploadStore } from "../storage/upload-store.ts";

const BATCH = 100;

export interface UploadSweepDeps {
  db: Db;
  store: UploadStore;
  logger: Logger;
}

/**
 * Deletes the bytes of uploads that expired unfinished and of finished ones 24 h after completion,
 * unless an unfinished job still has to read them. A submission is refused by its own clock check
 * anyway (410). Returns how many were deleted.
 */
export async function sweepUploads(deps: UploadSweepDeps, now: Date): Promise<number> {
  let deleted = 0;
  for (let more = true; more; ) {
    const ids = await uploadsToDelete(deps.db, now, FINISHED_UPLOAD_TTL_SECONDS * 1000, BATCH);
    let batchDeleted = 0;
    for (const id of ids) if (await deleteIfStillDue(deps, id, now)) batchDeleted += 1;
    deleted += batchDeleted;
    // A full batch of which some were kept (jobs submitted meanwhile) ends the sweep: the next one goes on.
    more = batchDeleted === BATCH;
  }
  return deleted;
}

/**
 * One upload: its row locked and checked again (a job may have been submitted since the list was read),
 * its bytes removed, then the row marked deleted, all before the lock is let go: storage that refuses
 * leaves the row for the next sweep, so no bytes are orphaned, and does not hold up the other uploads.
 */
async function deleteIfStillDue(deps: UploadSweepDeps, id: string, now: Date): Promise<boolean> {
  try {
    const deleted = await deps.db.transaction().execute(async (trx) => {
      await findUpload(trx, id, { lock: true });
      if ((await uploadsToDelete(trx, now, FINISHED_UPLOAD_TTL_SECONDS * 1000, 1, id)).length === 0) return false;
      await deps.store.remove(id);
      await markUploadDeleted(trx, id, now);
      return true;
    });
    if (deleted) deps.logger.info({ upload_id: id }, "upload deleted");
    return deleted;
  } catch (error) {
    deps.logger.warn({ err: error, upload_id: id }, "upload not deleted");
    return false;
  }
}
