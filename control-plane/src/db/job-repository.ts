import { sql } from "kysely";
import { ACTIVE_STATUSES } from "@caption/shared/api/job";
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

export async function countActiveJobs(db: DbOrTrx, accountId: string): Promise<number> {
  const row = await db
    .selectFrom("jobs")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .where("status", "in", ACTIVE_STATUSES)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function markCanceled(db: DbOrTrx, jobId: string): Promise<JobRow> {
  return db
    .updateTable("jobs")
    .set({ status: "canceled", reserved_seconds: 0, finished_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
    .where("id", "=", jobId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Any account's job: for work the service does on its own behalf (webhook payloads), never for a client's request. */
export async function loadJobRow(db: DbOrTrx, jobId: string): Promise<JobRow | undefined> {
  return db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
}
