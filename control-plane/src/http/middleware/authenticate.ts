import type { Middleware } from "koa";
import type { Scope } from "@caption/shared/api/scopes";
import type { Db } from "@caption/shared/db/database";
import { authenticateApiKey, type Principal } from "../../services/authentication.ts";
import type { AppState } from "../app-state.ts";

/** Bearer-key authentication, scope check and the per-key request rate limit. */
export function authenticate(db: Db, needed: Scope, now: () => Date): Middleware<AppState> {
  return async (ctx, next) => {
    const key = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get("Authorization"))?.[1];
    const principal = await authenticateApiKey(db, key, needed, now());
    ctx.state.principal = principal;
    ctx.state.log = ctx.state.log.child({ account_id: principal.accountId });
    await next();
  };
}

/** The principal `authenticate` put on the state; a route without it is a wiring mistake. */
export const principalOf = (state: AppState): Principal => {
  if (!state.principal) throw new Error("route reached without authentication");
  return state.principal;
};
