import { accountBalance } from "@caption/shared/db/credit-ledger";
import type { DbOrTrx } from "@caption/shared/db/database";
import { ServiceError } from "./service-error.ts";

/**
 * A positive balance is needed to create a job or an upload (whose bytes the service stores). A snapshot
 * suffices: the worker re-checks under lock when it reserves.
 */
export async function assertPositiveBalance(db: DbOrTrx, accountId: string, what: string): Promise<void> {
  const { available } = await accountBalance(db, accountId);
  if (available <= 0) throw new ServiceError("INSUFFICIENT_CREDITS", `no prepaid seconds are available; add credit to ${what}`);
}
