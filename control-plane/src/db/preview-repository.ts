import { sql } from "kysely";
import type { DbOrTrx } from "@caption/shared/db/database";
import type { PreviewResultsTable } from "@caption/shared/db/tables";
import type { Selectable } from "kysely";

export type PreviewResultRow = Selectable<PreviewResultsTable>;

/** The preview's answer, taken (deleted) if a worker has written it: it is read once, by the request that waits. */
export async function takePreviewResult(db: DbOrTrx, previewId: string): Promise<PreviewResultRow | undefined> {
  return db.deleteFrom("preview_results").where("id", "=", previewId).returningAll().executeTakeFirst();
}

/** Counts a preview request of the key in the minute of `at`; returns the window's count with it and the window's start. */
export async function countPreviewRequest(db: DbOrTrx, apiKeyId: string, at: Date): Promise<{ count: number; window_start: Date }> {
  const result = await sql<{ count: number; window_start: Date }>`
    INSERT INTO preview_rate_windows (api_key_id, window_start, count) VALUES (${apiKeyId}, date_trunc('minute', ${at}::timestamptz), 1)
    ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = preview_rate_windows.count + 1
    RETURNING count, window_start`.execute(db);
  return result.rows[0]!;
}

/** Answers nobody took (their request gave up at its deadline) and finished rate windows. */
export async function deleteStalePreviewRows(db: DbOrTrx, resultsBefore: Date, windowsBefore: Date): Promise<void> {
  await db.deleteFrom("preview_results").where("created_at", "<", resultsBefore).execute();
  await db.deleteFrom("preview_rate_windows").where("window_start", "<", windowsBefore).execute();
}

/** Whether a worker (which draws previews) has been seen lately. */
export async function liveWorkerCount(db: DbOrTrx, withinSeconds: number): Promise<number> {
  const row = await db
    .selectFrom("workers")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("last_seen_at", ">", sql<Date>`now() - make_interval(secs => ${withinSeconds})`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
