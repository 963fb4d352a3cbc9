import { DEFAULT_JOB_PAGE, type CancelResponse, type Job, type JobList, type JobListQuery } from "@caption/shared/api/job";
import type { Db } from "@caption/shared/db/database";
import { findKeyAndCountRequestWithJob } from "../db/api-key-repository.ts";
import { listAccountJobs, type JobListPosition } from "../db/job-repository.ts";
import { cancelJob as cancelAccountJob } from "@caption/shared/jobs/job-lifecycle";
import type { ResultLinks } from "../storage/result-links.ts";
import { keyCredentials, principalOf, type Principal } from "./authentication.ts";
import { presentJob } from "./job-presenter.ts";
import type { RateRefusals } from "./rate-refusals.ts";
import { invalidRequest, notFound } from "./service-error.ts";

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

/**
 * A page of the account's jobs, newest first, and the cursor of the next page (null on the last). The cursor is
 * the last job's place (creation time to the microsecond, then id), so jobs created meanwhile never shift a page.
 */
export async function listJobs(db: Db, accountId: string, query: JobListQuery): Promise<JobList> {
  const limit = query.limit ?? DEFAULT_JOB_PAGE;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  // One more than the page: whether there is a next page, without a second query.
  const rows = await listAccountJobs(db, accountId, limit + 1, after);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    jobs: page.map(({ created_micros: _, created_at, ...job }) => ({ ...job, created_at: new Date(created_at).toISOString() })),
    next_cursor: rows.length > limit && last ? encodeCursor({ createdMicros: BigInt(last.created_micros), id: last.id }) : null,
  };
}

const encodeCursor = (position: JobListPosition) => Buffer.from(`${position.createdMicros}.${position.id}`).toString("base64url");

function decodeCursor(cursor: string): JobListPosition {
  const match = /^(\d{1,18})\.(job_[0-9A-Za-z_]{1,64})$/u.exec(Buffer.from(cursor, "base64url").toString());
  if (!match) throw invalidRequest("cursor is not a next_cursor of GET /v1/jobs");
  return { createdMicros: BigInt(match[1]!), id: match[2]! };
}
