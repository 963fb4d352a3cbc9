import { sql } from "kysely";
import type { JobRow, NewJobRow } from "@caption/shared/db/tables";
import type { DbOrTrx } from "@caption/shared/db/database";

export async function insertJob(db: DbOrTrx, job: NewJobRow): Promise<void> {
  await db.insertInto("jobs").values(job).execute();
}

export async function findJob(db: DbOrTrx, accountId: string, jobId: string, options: { lock?: boolean } = {}): Promise<JobRow | undefined> {
  let query = db.selectFrom("jobs").selectAll().where("id", "=", jobId).where("account_id", "=", accountId);
  if (options.lock) query = query.forNoKeyUpdate();
  return query.executeTakeFirst();
}

export async function markCanceled(db: DbOrTrx, jobId: string): Promise<JobRow> {
  return db
    .updateTable("jobs")
    .set({ status: "canceled", reserved_seconds: 0, finished_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
    .where("id", "=", jobId)
    .returningAll()
    .executeTakeFirstOrThrow();
}
