import { sql } from "kysely";
import type { JobStatus } from "@caption/shared/api/job";
import type { DbOrTrx } from "@caption/shared/db/database";
import type { JobRow } from "@caption/shared/db/tables";

// What the worker alone reads and records on job rows: the whole row for an attempt, its status for the
// cancel watch, and what inspection found. The job's transitions are the lifecycle's
// (@caption/shared/jobs/job-lifecycle).

const now = sql<Date>`now()`;

export async function loadJob(db: DbOrTrx, jobId: string): Promise<JobRow | undefined> {
  return db.selectFrom("jobs").selectAll().where("id", "=", jobId).executeTakeFirst();
}

export async function jobStatus(db: DbOrTrx, jobId: string): Promise<JobStatus | undefined> {
  return (await db.selectFrom("jobs").select("status").where("id", "=", jobId).executeTakeFirst())?.status;
}

/** What inspection found, and the bytes it looked at (a retry must see the same). */
export async function recordInspection(
  db: DbOrTrx,
  jobId: string,
  values: { media: object; durationSeconds: number; resolvedStyle: object; source: { sha256: string; bytes: number } },
): Promise<void> {
  await db
    .updateTable("jobs")
    .set({
      media: JSON.stringify(values.media),
      duration_seconds: values.durationSeconds,
      resolved_style: JSON.stringify(values.resolvedStyle),
      source_sha256: values.source.sha256,
      source_bytes: values.source.bytes,
      updated_at: now,
    })
    .where("id", "=", jobId)
    .execute();
}
