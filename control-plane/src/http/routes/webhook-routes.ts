import type Router from "@koa/router";
import bodyParser from "@koa/bodyparser";
import { WebhookEndpointRequestSchema } from "@caption/shared/api/webhook";
import { createWebhookEndpoint, deleteWebhookEndpoint, listWebhookDeliveries, listWebhookEndpoints } from "../../services/webhook-endpoint-service.ts";
import { invalidRequest } from "../../services/service-error.ts";
import type { AppDeps } from "../app-deps.ts";
import type { AppState } from "../app-state.ts";
import { authenticate, principalOf } from "../middleware/authenticate.ts";
import { createValidator } from "../validation.ts";

const endpointRequest = createValidator(WebhookEndpointRequestSchema);

/** Account-level webhook endpoints: register (secret shown once), list, delete, and their recent deliveries. */
export function webhookRoutes(router: Router<AppState>, deps: AppDeps): void {
  const write = authenticate(deps.db, "subtitles:write", deps.now);
  const read = authenticate(deps.db, "subtitles:read", deps.now);
  const json = bodyParser({ enableTypes: ["json"], jsonLimit: "16kb", encoding: "utf-8",
    onError: () => {
      throw invalidRequest("request body must be a JSON object");
    },
  });

  router.post("/v1/webhook_endpoints", write, async (ctx, next) => {
    if (!ctx.is("application/json")) throw invalidRequest("Content-Type must be application/json");
    await next();
  }, json, async (ctx) => {
    const request = endpointRequest.parse(ctx.request.body);
    const created = await createWebhookEndpoint(deps.db, principalOf(ctx.state).accountId, request, { allowPrivateAddresses: deps.allowPrivateAddresses });
    ctx.state.log.info({ webhook_endpoint_id: created.id, events: created.events }, "webhook endpoint created");
    ctx.status = 201;
    ctx.set("Cache-Control", "no-store");
    ctx.body = created;
  });

  router.get("/v1/webhook_endpoints", read, async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = await listWebhookEndpoints(deps.db, principalOf(ctx.state).accountId);
  });

  router.delete("/v1/webhook_endpoints/:id", write, async (ctx) => {
    await deleteWebhookEndpoint(deps.db, principalOf(ctx.state).accountId, ctx.params.id ?? "");
    ctx.state.log.info({ webhook_endpoint_id: ctx.params.id }, "webhook endpoint deleted");
    ctx.status = 204;
  });

  router.get("/v1/webhook_endpoints/:id/deliveries", read, async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = await listWebhookDeliveries(deps.db, principalOf(ctx.state).accountId, ctx.params.id ?? "");
  });
}
