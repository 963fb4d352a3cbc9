import type { Usage } from "@caption/shared/api/usage";
import { accountBalance } from "@caption/shared/db/credit-ledger";
import type { Db } from "@caption/shared/db/database";
import { findAccount } from "../db/account-repository.ts";
import { storedBytesOf } from "../db/job-repository.ts";

export async function getUsage(db: Db, accountId: string): Promise<Usage> {
  const [balance, account, storedBytes] = await Promise.all([accountBalance(db, accountId), findAccount(db, accountId), storedBytesOf(db, accountId)]);
  return {
    available_seconds: balance.available,
    reserved_seconds: balance.reserved,
    consumed_seconds: balance.consumed,
    active_jobs: account?.active_jobs ?? 0,
    concurrency_limit: account?.concurrency_limit ?? 0,
    stored_bytes: storedBytes,
  };
}
