import type Router from "@koa/router";
import { WebhookEndpointRequestSchema } from "@caption/shared/api/webhook";
import { createWebhookEndpoint, deleteWebhookEndpoint, enableWebhookEndpoint, listWebhookDeliveries, listWebhookEndpoints } from "../../services/webhook-endpoint-service.ts";
import type { AppDeps } from "../app-deps.ts";
import type { AppState } from "../app-state.ts";
import { jsonBody } from "../json-body.ts";
import { authenticate, principalOf } from "../middleware/authenticate.ts";
import { createValidator } from "../validation.ts";

const endpointRequest = createValidator(WebhookEndpointRequestSchema);

/** Account-level webhook endpoints: register (secret shown once), list, enable again, delete, and their recent deliveries. */
export function webhookRoutes(router: Router<AppState>, deps: AppDeps): void {
  const write = authenticate(deps.db, "subtitles:write", deps.now);
  const read = authenticate(deps.db, "subtitles:read", deps.now);

  router.post("/v1/webhook_endpoints", write, ...jsonBody({ limit: "16kb", tooLargeIs413: false }), async (ctx) => {
    const request = endpointRequest.parse(ctx.request.body);
    const created = await createWebhookEndpoint(deps.db, principalOf(ctx.state).accountId, request, {
      allowPrivateAddresses: deps.allowPrivateAddresses,
      lookupGate: deps.lookupGate,
      ...(deps.dns ? { dns: deps.dns } : {}),
      now: deps.now,
    });
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

  router.post("/v1/webhook_endpoints/:id/enable", write, async (ctx) => {
    const endpoint = await enableWebhookEndpoint(deps.db, principalOf(ctx.state).accountId, ctx.params.id ?? "");
    ctx.state.log.info({ webhook_endpoint_id: endpoint.id }, "webhook endpoint enabled");
    ctx.set("Cache-Control", "no-store");
    ctx.body = endpoint;
  });

  router.get("/v1/webhook_endpoints/:id/deliveries", read, async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = await listWebhookDeliveries(deps.db, principalOf(ctx.state).accountId, ctx.params.id ?? "");
  });
}
