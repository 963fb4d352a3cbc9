import type { CancelResponse, Job } from "@caption/shared/api/job";
import type { Db } from "@caption/shared/db/database";
import { findKeyAndCountRequestWithJob } from "../db/api-key-repository.ts";
import { cancelJob as cancelAccountJob } from "@caption/shared/jobs/job-lifecycle";
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
  const result = await cancelAccountJob(db, accountId, jobId);
  if (!result) throw notFound("job");
  return result;
}
