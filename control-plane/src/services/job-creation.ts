import type { Transaction } from "kysely";
import { monotonicFactory } from "ulid";
import type { SubmissionResponse } from "@caption/shared/api/submission";
import { accountBalance } from "@caption/shared/db/credit-ledger";
import type { Db, DbOrTrx } from "@caption/shared/db/database";
import type { Database } from "@caption/shared/db/tables";
import { countTransition } from "@caption/shared/telemetry/caption-metrics";
import { findLiveIdempotencyRecord, lockIdempotencyKey, saveIdempotencyRecord } from "../db/idempotency-repository.ts";
import { ServiceError } from "./service-error.ts";

// What every request that creates a job shares (POST /v1/subtitles, POST /v1/jobs/{id}/renders):
// job ids, the Idempotency-Key contract, the balance check, the concurrency limit's refusal.

const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
// Raised at COMMIT by the jobs_concurrency_limit trigger (see its migration).
const CONCURRENCY_LIMIT_SQLSTATE = "CL429";
const nextUlid = monotonicFactory();
export const newJobId = (): string => `job_${nextUlid()}`;

export interface JobCreation {
  accountId: string;
  idempotencyKey: string | undefined;
  /** Fingerprint of the request, endpoint included, that a repeated key must match; only read with a key. */
  requestHash: () => string;
  statusUrl(jobId: string): string;
}

/**
 * Creates one job: `create` inserts its row and queue entry on the transaction and returns its id;
 * the idempotency record commits with them. Concurrent duplicates of one idempotency key wait on its
 * lock and replay; the same key with another request is refused. The account's concurrency limit is
 * enforced at COMMIT by a database trigger.
 */
export async function createJobOnce(db: Db, creation: JobCreation, create: (trx: Transaction<Database>) => Promise<string>): Promise<SubmissionResponse> {
  const { accountId, idempotencyKey } = creation;
  // Only idempotent requests need the fingerprint.
  const hash = idempotencyKey === undefined ? "" : creation.requestHash();
  const response = await inTransaction(db, async (trx): Promise<SubmissionResponse> => {
    if (idempotencyKey !== undefined) {
      await lockIdempotencyKey(trx, accountId, idempotencyKey);
      const previous = await findLiveIdempotencyRecord(trx, accountId, idempotencyKey);
      if (previous) {
        if (previous.request_hash !== hash) {
          throw new ServiceError("IDEMPOTENCY_KEY_MISMATCH", "this Idempotency-Key was used with a different request body or endpoint; use a new key for a new request");
        }
        return { id: previous.job_id, status: "queued", status_url: creation.statusUrl(previous.job_id), replayed: true };
      }
    }
    const jobId = await create(trx);
    if (idempotencyKey !== undefined) {
      await saveIdempotencyRecord(trx, { account_id: accountId, key: idempotencyKey, request_hash: hash, job_id: jobId, ttlSeconds: IDEMPOTENCY_TTL_SECONDS });
    }
    return { id: jobId, status: "queued", status_url: creation.statusUrl(jobId), replayed: false };
  });
  if (!response.replayed) countTransition("queued");
  return response;
}

/** A positive balance is needed to create a job. A snapshot suffices: the worker re-checks under lock when it reserves. */
export async function assertPositiveBalance(trx: DbOrTrx, accountId: string): Promise<void> {
  const { available } = await accountBalance(trx, accountId);
  if (available <= 0) throw new ServiceError("INSUFFICIENT_CREDITS", "no prepaid seconds are available; add credit to submit jobs");
}

/** Runs the creating transaction; the concurrency trigger's refusal at COMMIT becomes CONCURRENCY_LIMIT_EXCEEDED. */
async function inTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  try {
    return await db.transaction().execute(work);
  } catch (error) {
    if ((error as { code?: unknown }).code === CONCURRENCY_LIMIT_SQLSTATE) {
      throw new ServiceError("CONCURRENCY_LIMIT_EXCEEDED", (error as Error).message, { retryAfterSeconds: 5 });
    }
    throw error;
  }
}
