import { sql } from "kysely";
import { ACTIVE_STATUSES } from "@caption/shared/api/job";
import type { DbOrTrx } from "@caption/shared/db/database";
import type { UploadRow } from "@caption/shared/db/tables";

export async function insertUpload(db: DbOrTrx, upload: Omit<UploadRow, "completed_at" | "deleted_at">): Promise<void> {
  await db.insertInto("uploads").values(upload).execute();
}

/**
 * Serialises the creations of one account until the transaction ends, so racing requests count each
 * other's unfinished uploads against the limit.
 */
export async function lockAccountUploads(db: DbOrTrx, accountId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`uploads\n${accountId}`}, 0))`.execute(db);
}

/** An upload that counts against its account's limits: its declared size and when it stops counting. */
export type KeptUpload = Pick<UploadRow, "id" | "size_bytes" | "expires_at" | "completed_at">;

/**
 * The account's uploads that count at `now`: unfinished ones until their URL expires, finished ones until
 * `finishedTtlMs` after completion (past it they can no longer be submitted, and the sweep deletes them).
 */
export async function keptUploads(db: DbOrTrx, accountId: string, now: Date, finishedTtlMs: number): Promise<KeptUpload[]> {
  const finishedAfter = new Date(now.getTime() - finishedTtlMs);
  return db
    .selectFrom("uploads")
    .select(["id", "size_bytes", "expires_at", "completed_at"])
    .where("account_id", "=", accountId)
    .where("deleted_at", "is", null)
    .where((eb) => eb.or([eb.and([eb("completed_at", "is", null), eb("expires_at", ">", now)]), eb("completed_at", ">", finishedAfter)]))
    .execute();
}

/** Any account's upload: the upload URL's requests prove their right by signature, not by key. */
export async function findUpload(db: DbOrTrx, uploadId: string, options: { lock?: boolean } = {}): Promise<UploadRow | undefined> {
  let query = db.selectFrom("uploads").selectAll().where("id", "=", uploadId);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Records the upload's completion once; true when this call recorded it. */
export async function markUploadCompleted(db: DbOrTrx, uploadId: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable("uploads")
    .set({ completed_at: at })
    .where("id", "=", uploadId)
    .where("completed_at", "is", null)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Uploads whose bytes may go: unfinished past their URL's expiry, finished more than `finishedTtlMs` ago;
 * never one that an unfinished caption job still has to read.
 */
export async function uploadsToDelete(db: DbOrTrx, now: Date, finishedTtlMs: number, limit: number, only?: string): Promise<string[]> {
  const finishedBefore = new Date(now.getTime() - finishedTtlMs);
  let query = db.selectFrom("uploads").select("id");
  if (only !== undefined) query = query.where("id", "=", only);
  const rows = await query
    .where("deleted_at", "is", null)
    .where((eb) =>
      eb.or([eb.and([eb("completed_at", "is", null), eb("expires_at", "<=", now)]), eb.and([eb("completed_at", "is not", null), eb("completed_at", "<=", finishedBefore)])]),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("jobs")
            .select("jobs.id")
            .whereRef("jobs.upload_id", "=", "uploads.id")
            .where("jobs.status", "in", ACTIVE_STATUSES),
        ),
      ),
    )
    .orderBy("expires_at")
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

export async function markUploadDeleted(db: DbOrTrx, uploadId: string, at: Date): Promise<void> {
  await db.updateTable("uploads").set({ deleted_at: at }).where("id", "=", uploadId).where("deleted_at", "is", null).execute();
}
