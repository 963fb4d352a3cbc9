import Koa from "koa";
import type { AppDeps } from "./app-deps.ts";
import type { AppState } from "./app-state.ts";
import { errorResponse } from "./middleware/error-response.ts";
import { noSniff } from "./middleware/no-sniff.ts";
import { requestContext } from "./middleware/request-context.ts";
import type { RouteSpec } from "./route-spec.ts";
import { buildRouter } from "./router.ts";
import { ROUTES } from "./routes.ts";
import { notFound, ServiceError } from "../services/service-error.ts";

/** The API over `routes` (every endpoint by default; tests add their own declarations). */
export function createApp(deps: AppDeps, routes: readonly RouteSpec[] = ROUTES): Koa<AppState> {
  // X-Forwarded-* are a client's to forge unless a proxy in front rewrites them: trusted only when told so.
  const app = new Koa<AppState>({ proxy: deps.trustProxy });
  // Errors after the response started (a streamed body's): a client leaving an event stream is normal.
  app.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "ERR_STREAM_PREMATURE_CLOSE") return;
    deps.logger.error({ err: error }, "response failed");
  });
  const router = buildRouter(routes, deps);
  app.use(requestContext(deps.logger));
  app.use(errorResponse());
  app.use(noSniff());
  app.use(async (ctx, next) => {
    await next();
    if (ctx.body != null || ctx.respond === false) return;
    if (ctx.status === 404) throw notFound("route");
    // A method the path has not, or one no route has (PROPFIND, which the router answers 501): 405, its Allow header kept.
    if (ctx.status === 405 || ctx.status === 501) throw new ServiceError("METHOD_NOT_ALLOWED", `${ctx.method} is not a method of this path; Allow lists those it has`);
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
