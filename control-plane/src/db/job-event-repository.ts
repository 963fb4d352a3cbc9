import type { DbOrTrx } from "@caption/shared/db/database";
import type { JobEventRow } from "@caption/shared/db/tables";

/** A job's events after `afterId`, oldest first (the jobs_record_event trigger writes them). */
export async function jobEventsAfter(db: DbOrTrx, jobId: string, afterId: number, limit = 500): Promise<JobEventRow[]> {
  return db.selectFrom("job_events").selectAll().where("job_id", "=", jobId).where("id", ">", afterId).orderBy("id").limit(limit).execute();
}
