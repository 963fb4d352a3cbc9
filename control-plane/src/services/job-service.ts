import { isTerminal, type CancelResponse, type Job } from "@caption/shared/api/job";
import { settleReservation } from "@caption/shared/db/credit-ledger";
import type { Db } from "@caption/shared/db/database";
import { findJob, markCanceled } from "../db/job-repository.ts";
import { countTransition } from "@caption/shared/telemetry/caption-metrics";
import type { ResultLinks } from "../storage/result-links.ts";
import { presentJob } from "./job-presenter.ts";
import { notFound } from "./service-error.ts";

export async function getJob(db: Db, links: ResultLinks, baseUrl: string, accountId: string, jobId: string, now: Date): Promise<Job> {
  const row = await findJob(db, accountId, jobId);
  // Another account's job is indistinguishable from a missing one.
  if (!row) throw notFound("job");
  return presentJob(row, links, baseUrl, now);
}

/** Cancels an unfinished job and releases its reservation; a terminal job keeps its state. */
export async function cancelJob(db: Db, accountId: string, jobId: string): Promise<CancelResponse> {
  let canceledNow = false;
  const result = await db.transaction().execute(async (trx) => {
    const row = await findJob(trx, accountId, jobId, { lock: true });
    if (!row) throw notFound("job");
    if (isTerminal(row.status)) return { id: row.id, status: row.status };
    canceledNow = true;
    await settleReservation(trx, jobId, "release");
    const canceled = await markCanceled(trx, jobId);
    return { id: canceled.id, status: canceled.status };
  });
  if (canceledNow) countTransition("canceled");
  return result;
}
