import { sql, type Insertable } from "kysely";
import type { DbOrTrx } from "@caption/shared/db/database";
import type { WorkersTable } from "@caption/shared/db/tables";

const now = sql<Date>`now()`;

/** What a worker says about itself: its engine, model and languages. */
export type WorkerDescription = Omit<Insertable<WorkersTable>, "id" | "started_at" | "last_seen_at">;

/** Inserts the worker's row, or refreshes it (and its `last_seen_at`) when the id is already known. */
export async function upsertWorker(db: DbOrTrx, workerId: string, description: WorkerDescription): Promise<void> {
  await db
    .insertInto("workers")
    .values({ id: workerId, ...description })
    .onConflict((oc) => oc.column("id").doUpdateSet({ ...description, last_seen_at: now }))
    .execute();
}

export async function touchWorker(db: DbOrTrx, workerId: string): Promise<void> {
  await db.updateTable("workers").set({ last_seen_at: now }).where("id", "=", workerId).execute();
}

export async function deleteWorker(db: DbOrTrx, workerId: string): Promise<void> {
  await db.deleteFrom("workers").where("id", "=", workerId).execute();
}
