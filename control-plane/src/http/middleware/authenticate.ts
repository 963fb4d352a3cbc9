import type { Context, Middleware } from "koa";
import type { Scope } from "@caption/shared/api/scopes";
import type { Db } from "@caption/shared/db/database";
import { authenticateApiKey, type Principal } from "../../services/authentication.ts";
import type { RateRefusals } from "../../services/rate-refusals.ts";
import type { AppState } from "../app-state.ts";

/** The key of `Authorization: Bearer <key>`, if the header has that form. */
export const bearerKey = (ctx: Context): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(ctx.get("Authorization"))?.[1];

/** Records who the request acts for, and says so in its log lines. */
export function actFor(state: AppState, principal: Principal): void {
  state.principal = principal;
  state.log = state.log.child({ account_id: principal.accountId });
}

/** Bearer-key authentication, scope check and the per-key request rate limit. */
export function authenticate(db: Db, refusals: RateRefusals, needed: Scope, now: () => Date): Middleware<AppState> {
  return async (ctx, next) => {
    actFor(ctx.state, await authenticateApiKey(db, refusals, bearerKey(ctx), needed, now()));
    await next();
  };
}

/** The principal `authenticate` put on the state; a route without it is a wiring mistake. */
export const principalOf = (state: AppState): Principal => {
  if (!state.principal) throw new Error("route reached without authentication");
  return state.principal;
};
