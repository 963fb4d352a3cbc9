import type Router from "@koa/router";
import { PreviewRequestSchema } from "@caption/shared/api/preview";
import { requestPreview } from "../../services/preview-service.ts";
import type { AppDeps } from "../app-deps.ts";
import type { AppState } from "../app-state.ts";
import { jsonBody } from "../json-body.ts";
import { authenticate, principalOf } from "../middleware/authenticate.ts";
import { createValidator } from "../validation.ts";

const previewBody = createValidator(PreviewRequestSchema);

/** POST /v1/previews: a still or a short clip of a look, answered with its bytes; no job, no charge. */
export function previewRoutes(router: Router<AppState>, deps: AppDeps): void {
  const write = authenticate(deps.db, "subtitles:write", deps.now);
  router.post("/v1/previews", write, ...jsonBody({ limit: "64kb", tooLargeIs413: true }), async (ctx) => {
    const request = previewBody.parse(ctx.request.body);
    const started = performance.now();
    const services = { db: deps.db, queue: deps.queue, listener: deps.listener, limits: deps.previewLimits, now: deps.now };
    const preview = await requestPreview(services, principalOf(ctx.state), request);
    ctx.state.log.info({ format: request.format, preset: request.preset, bytes: preview.body.length, ms: Math.round(performance.now() - started) }, "preview answered");
    ctx.set("Cache-Control", "no-store");
    ctx.type = preview.contentType;
    ctx.body = preview.body;
  });
}
