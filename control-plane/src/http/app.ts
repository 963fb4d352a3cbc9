import Router from "@koa/router";
import Koa from "koa";
import type { AppDeps } from "./app-deps.ts";
import type { AppState } from "./app-state.ts";
import { errorResponse } from "./middleware/error-response.ts";
import { noSniff } from "./middleware/no-sniff.ts";
import { requestContext } from "./middleware/request-context.ts";
import { fileRoutes } from "./routes/file-routes.ts";
import { docsRoutes } from "./routes/docs-routes.ts";
import { jobEventRoutes } from "./routes/job-event-routes.ts";
import { jobRoutes } from "./routes/job-routes.ts";
import { previewRoutes } from "./routes/preview-routes.ts";
import { publicRoutes } from "./routes/public-routes.ts";
import { uploadRoutes } from "./routes/upload-routes.ts";
import { webhookRoutes } from "./routes/webhook-routes.ts";
import { notFound } from "../services/service-error.ts";

export function createApp(deps: AppDeps): Koa<AppState> {
  // X-Forwarded-* are a client's to forge unless a proxy in front rewrites them: trusted only when told so.
  const app = new Koa<AppState>({ proxy: deps.trustProxy });
  // Errors after the response started (a streamed body's): a client leaving an event stream is normal.
  app.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "ERR_STREAM_PREMATURE_CLOSE") return;
    deps.logger.error({ err: error }, "response failed");
  });
  const router = new Router<AppState>();
  publicRoutes(router, deps);
  jobRoutes(router, deps);
  jobEventRoutes(router, deps);
  previewRoutes(router, deps);
  webhookRoutes(router, deps);
  uploadRoutes(router, deps);
  docsRoutes(router, deps);
  if (deps.localFilesRoot) fileRoutes(router, deps.localFilesRoot, deps.signer, deps.now);
  app.use(requestContext(deps.logger));
  app.use(errorResponse());
  app.use(noSniff());
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body == null && ctx.respond !== false) throw notFound("route");
  });
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return app;
}
