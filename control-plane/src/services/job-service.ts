import type { CancelResponse, Job } from "@caption/shared/api/job";
import type { Db } from "@caption/shared/db/database";
import { findKeyAndCountRequestWithJob } from "../db/api-key-repository.ts";
import { cancelJob as cancelAccountJob } from "@caption/shared/jobs/job-lifecycle";
import type { ResultLinks } from "../storage/result-links.ts";
import { keyCredentials, principalOf, type Principal } from "./authentication.ts";
import { presentJob } from "./job-presenter.ts";
import type { RateRefusals } from "./rate-refusals.ts";
import { notFound } from "./service-error.ts";

/**
 * A job as its account polls it: the key is authenticated, the request counted against its rate and the job
 * read in one round trip (polling is the busiest request); a key known to be over its rate is refused from
 * memory. Another account's job is indistinguishable from a missing one.
 */
export async function pollJob(
  db: Db,
  refusals: RateRefusals,
  links: ResultLinks,
  baseUrl: string,
  key: string | undefined,
  jobId: string,
  now: Date,
): Promise<{ principal: Principal; job: Job }> {
  const { prefix, secretHash } = keyCredentials(key);
  const over = await refusals.refusing(secretHash, now);
  // Throws: a remembered count is over its limit.
  if (over) principalOf(over, "subtitles:read", now);
  const found = await findKeyAndCountRequestWithJob(db, prefix, secretHash, now, jobId);
  refusals.note(secretHash, found?.key);
  const principal = principalOf(found?.key, "subtitles:read", now);
  if (!found?.job) throw notFound("job");
  return { principal, job: await presentJob(found.job, links, baseUrl, now) };
}

/** Cancels an unfinished job and releases its reservation; a terminal job keeps its state. */
export async function cancelJob(db: Db, accountId: string, jobId: string): Promise<CancelResponse> {
  const result = await cancelAccountJob(db, accountId, jobId);
  if (!result) throw notFound("job");
  return result;
}
