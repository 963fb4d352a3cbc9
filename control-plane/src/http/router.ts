import Router, { type RouterContext } from "@koa/router";
import type { Middleware } from "koa";
import type { AppDeps } from "./app-deps.ts";
import type { AppState } from "./app-state.ts";
import { idempotencyKeyOf, jsonBody } from "./json-body.ts";
import { authenticate } from "./middleware/authenticate.ts";
import { requestShape } from "./request-shape.ts";
import { assertParamsDeclared, koaPath, type RouteSpec } from "./route-spec.ts";
import { createValidator } from "./validation.ts";

/**
 * The Koa router of a route list: per route, its path parameters checked against their shapes (404 before
 * anything else), key authentication when it declares a scope checked by middleware, the query validated,
 * the JSON body parsed and validated against its schema, the Idempotency-Key read, then the handler.
 */
export function buildRouter(routes: readonly RouteSpec[], deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>();
  for (const route of routes) {
    if (route.enabled && !route.enabled(deps)) continue;
    assertParamsDeclared(route);
    const shape = requestShape(route);
    const before: Middleware<AppState>[] = [
      async (ctx, next) => {
        shape.checkParams(ctx.params);
        await next();
      },
    ];
    if (route.auth !== "none" && route.auth.checkedBy === "middleware") before.push(authenticate(deps.db, deps.rateRefusals, route.auth.scope, deps.now));
    if (route.query) {
      before.push(async (ctx, next) => {
        ctx.state.query = shape.parseQuery(ctx.query);
        await next();
      });
    }
    const beforeBody = route.beforeBody;
    if (beforeBody) {
      before.push(async (ctx, next) => {
        await beforeBody(ctx as RouterContext<AppState>, deps);
        await next();
      });
    }
    if (route.body) before.push(...jsonBody({ limit: route.body.limit, tooLargeIs413: route.body.tooLargeIs413 }));
    const body = route.body && createValidator(route.body.schema);
    router.register(koaPath(route.path), [route.method.toUpperCase()], [
      ...before,
      async (ctx) => {
        const parsed = body ? body.parse(ctx.request.body) : undefined;
        const idempotencyKey = route.idempotent ? idempotencyKeyOf(ctx) : undefined;
        await route.handle(ctx, { deps, body: parsed, idempotencyKey, query: ctx.state.query, routes });
      },
    ]);
  }
  return router;
}
