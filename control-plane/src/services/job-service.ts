import { isTerminal, type CancelResponse, type Job } from "@caption/shared/api/job";
import { settleReservation } from "@caption/shared/db/credit-ledger";
import type { Db } from "@caption/shared/db/database";
import { findKeyAndCountRequestWithJob } from "../db/api-key-repository.ts";
import { findJob, markCanceled } from "../db/job-repository.ts";
import { countTransition } from "@caption/shared/telemetry/caption-metrics";
import type { ResultLinks } from "../storage/result-links.ts";
import { keyCredentials, principalOf, type Principal } from "./authentication.ts";
import { presentJob } from "./job-presenter.ts";
import { notFound } from "./service-error.ts";

/**
 * A job as its account polls it: the key is authenticated, the request counted against its rate and the job
 * read in one round trip (polling is the busiest request). Another account's job is indistinguishable from a
 * missing one.
 */
export async function pollJob(
  db: Db,
  links: ResultLinks,
  baseUrl: string,
  key: string | undefined,
  jobId: string,
  now: Date,
): Promise<{ principal: Principal; job: Job }> {
  const { prefix, secretHash } = keyCredentials(key);
  const found = await findKeyAndCountRequestWithJob(db, prefix, secretHash, now, jobId);
  const principal = principalOf(found?.key, "subtitles:read", now);
  if (!found?.job) throw notFound("job");
  return { principal, job: await presentJob(found.job, links, baseUrl, now) };
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
