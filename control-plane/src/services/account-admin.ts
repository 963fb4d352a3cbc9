import { monotonicFactory } from "ulid";
import { isScope, SCOPES, type Scope } from "@caption/shared/api/scopes";
import { accountBalance, grantCredits } from "@caption/shared/db/credit-ledger";
import type { Db } from "@caption/shared/db/database";
import { findAccount, insertAccount } from "../db/account-repository.ts";
import { insertApiKey, revokeApiKeyByPrefix } from "../db/api-key-repository.ts";
import { generateApiKey } from "./api-key-secret.ts";

const nextUlid = monotonicFactory();

export interface CreateKeyInput {
  name: string;
  scopes: string[];
  credits: number;
  concurrency?: number;
  ratePerMinute?: number;
  /** Add the key to an existing account instead of creating one. */
  accountId?: string;
}

/** Creates an account (unless given) with its first grant, and a key shown exactly once. */
export async function createKey(db: Db, input: CreateKeyInput): Promise<{ api_key: string; account_id: string; key_prefix: string; scopes: Scope[] }> {
  const scopes = input.scopes.filter(isScope);
  if (scopes.length < input.scopes.length || scopes.length === 0) throw new Error(`scopes must be among ${SCOPES.join(", ")}; got ${input.scopes.join(", ") || "none"}`);
  if (!Number.isInteger(input.credits) || input.credits < 0) throw new Error("credits must be a whole number of seconds ≥ 0");
  const generated = generateApiKey();
  return db.transaction().execute(async (trx) => {
    let accountId = input.accountId;
    if (accountId) {
      if (!(await findAccount(trx, accountId))) throw new Error(`account ${accountId} not found`);
    } else {
      accountId = `acct_${nextUlid()}`;
      await insertAccount(trx, { id: accountId, name: input.name, concurrency_limit: input.concurrency, rate_limit_per_minute: input.ratePerMinute });
    }
    await insertApiKey(trx, { id: `key_${nextUlid()}`, account_id: accountId, name: input.name, prefix: generated.prefix, secret_hash: generated.secretHash, scopes });
    if (input.credits > 0) await grantCredits(trx, accountId, input.credits, `initial grant for key ${generated.prefix}`);
    return { api_key: generated.key, account_id: accountId, key_prefix: generated.prefix, scopes };
  });
}

export async function grantAccountCredits(db: Db, accountId: string, seconds: number) {
  if (!Number.isInteger(seconds) || seconds <= 0) throw new Error("seconds must be a positive whole number");
  return db.transaction().execute(async (trx) => {
    if (!(await findAccount(trx, accountId))) throw new Error(`account ${accountId} not found`);
    await grantCredits(trx, accountId, seconds, "admin grant");
    return { account_id: accountId, granted_seconds: seconds, balance: await accountBalance(trx, accountId) };
  });
}

export async function revokeKey(db: Db, prefix: string, now: Date) {
  const revoked = await revokeApiKeyByPrefix(db, prefix, now);
  if (!revoked) throw new Error(`no active key with prefix ${prefix}`);
  return { revoked: true, key_prefix: prefix, account_id: revoked.account_id };
}

export async function showAccount(db: Db, accountId: string) {
  const account = await findAccount(db, accountId);
  if (!account) throw new Error(`account ${accountId} not found`);
  const keys = await db.selectFrom("api_keys").select(["prefix", "name", "scopes", "created_at", "revoked_at"]).where("account_id", "=", accountId).orderBy("created_at").execute();
  return {
    account_id: account.id,
    name: account.name,
    concurrency_limit: account.concurrency_limit,
    rate_limit_per_minute: account.rate_limit_per_minute,
    balance: await accountBalance(db, accountId),
    keys: keys.map((k) => ({ prefix: k.prefix, name: k.name, scopes: k.scopes, created_at: k.created_at, revoked_at: k.revoked_at })),
  };
}
