import type { DbOrTrx } from "@caption/shared/db/database";
import type { JobEventRow } from "@caption/shared/db/tables";

/** A job's events after `afterId`, oldest first (the jobs_record_event trigger writes them). */
export async function jobEventsAfter(db: DbOrTrx, jobId: string, afterId: number, limit = 500): Promise<JobEventRow[]> {
  return db.selectFrom("job_events").selectAll().where("job_id", "=", jobId).where("id", ">", afterId).orderBy("id").limit(limit).execute();
}

/** The id of the job's latest event; 0 when it has none. */
export async function lastJobEventId(db: DbOrTrx, jobId: string): Promise<number> {
  const row = await db.selectFrom("job_events").select((eb) => eb.fn.max("id").as("id")).where("job_id", "=", jobId).executeTakeFirst();
  return Number(row?.id ?? 0);
}

/** Forgets progress events older than `before`; status events stay as the job's history. */
export async function deleteProgressEventsBefore(db: DbOrTrx, before: Date): Promise<void> {
  await db.deleteFrom("job_events").where("type", "=", "progress").where("created_at", "<", before).execute();
}
