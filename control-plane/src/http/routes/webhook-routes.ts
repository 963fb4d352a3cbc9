import { DISABLE_AFTER_ATTEMPTS, DISABLE_AFTER_FAILING_MS, MAX_WEBHOOK_ENDPOINTS, RECENT_WEBHOOK_DELIVERIES, WebhookEndpointSchema } from "@caption/shared/api/webhook";
import { WebhookDeliveryListSchema, WebhookEndpointCreatedSchema, WebhookEndpointListSchema, WebhookEndpointRequestSchema } from "@caption/shared/api/webhook";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  enableWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
} from "../../services/webhook-endpoint-service.ts";
import { principalOf } from "../middleware/authenticate.ts";
import { error, json, notFoundError } from "../openapi-parts.ts";
import { webhookEndpointIdParam } from "../path-params.ts";
import { defineRoute } from "../route-spec.ts";

const endpointId = { id: webhookEndpointIdParam };

/** Account-level webhook endpoints: register (secret shown once), list, enable again, delete, and their recent deliveries. */
export const webhookRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/webhook_endpoints",
    doc: {
      operationId: "createWebhookEndpoint",
      tags: ["Webhooks"],
      summary: "Register a webhook endpoint",
      description: `Deliveries of the chosen events (default: the three terminal ones and webhook_endpoint.disabled) go to this HTTPS URL, signed with the returned secret, which is shown only here. At most ${MAX_WEBHOOK_ENDPOINTS} endpoints per account.`,
    },
    auth: { scope: "subtitles:write", checkedBy: "middleware" },
    body: { schema: WebhookEndpointRequestSchema, limit: "16kb", tooLargeIs413: false },
    responses: {
      "201": { description: "The endpoint with its signing secret", ...json(WebhookEndpointCreatedSchema) },
      "400": error(`INVALID_REQUEST: a rule broken, a URL that is not HTTPS or points to a private address, or ${MAX_WEBHOOK_ENDPOINTS} endpoints already`),
    },
    async handle(ctx, { deps, body: request }) {
      const created = await createWebhookEndpoint(deps.db, principalOf(ctx.state).accountId, request, { ...deps.webhookUrls, now: deps.now });
      ctx.state.log.info({ webhook_endpoint_id: created.id, events: created.events }, "webhook endpoint created");
      ctx.status = 201;
      ctx.set("Cache-Control", "no-store");
      ctx.body = created;
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/webhook_endpoints",
    doc: {
      operationId: "listWebhookEndpoints",
      tags: ["Webhooks"],
      summary: "The account's webhook endpoints",
      description: "Every endpoint of the account, oldest first, without secrets.",
    },
    auth: { scope: "subtitles:read", checkedBy: "middleware" },
    responses: { "200": { description: "The endpoints", ...json(WebhookEndpointListSchema) } },
    async handle(ctx, { deps }) {
      ctx.set("Cache-Control", "no-store");
      ctx.body = await listWebhookEndpoints(deps.db, principalOf(ctx.state).accountId);
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/webhook_endpoints/{id}",
    doc: {
      operationId: "deleteWebhookEndpoint",
      tags: ["Webhooks"],
      summary: "Remove a webhook endpoint",
      description: "Removes the endpoint; its pending deliveries are dropped.",
    },
    auth: { scope: "subtitles:write", checkedBy: "middleware" },
    params: endpointId,
    responses: { "204": { description: "Removed" }, ...notFoundError },
    async handle(ctx, { deps }) {
      await deleteWebhookEndpoint(deps.db, principalOf(ctx.state).accountId, ctx.params.id ?? "");
      ctx.state.log.info({ webhook_endpoint_id: ctx.params.id }, "webhook endpoint deleted");
      ctx.status = 204;
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/webhook_endpoints/{id}/enable",
    doc: {
      operationId: "enableWebhookEndpoint",
      tags: ["Webhooks"],
      summary: "Enable a disabled webhook endpoint",
      description:
        `An endpoint whose every attempt failed for ${DISABLE_AFTER_FAILING_MS / 86_400_000} days (${DISABLE_AFTER_ATTEMPTS} attempts at least) is disabled: no ` +
        "deliveries are queued for it and its pending ones are given up. This enables it again with its failures forgotten; events from now on are delivered.",
    },
    auth: { scope: "subtitles:write", checkedBy: "middleware" },
    params: endpointId,
    responses: {
      "200": { description: "The endpoint, enabled", ...json(WebhookEndpointSchema) },
      ...notFoundError,
    },
    async handle(ctx, { deps }) {
      const endpoint = await enableWebhookEndpoint(deps.db, principalOf(ctx.state).accountId, ctx.params.id ?? "");
      ctx.state.log.info({ webhook_endpoint_id: endpoint.id }, "webhook endpoint enabled");
      ctx.set("Cache-Control", "no-store");
      ctx.body = endpoint;
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/webhook_endpoints/{id}/deliveries",
    doc: {
      operationId: "listWebhookDeliveries",
      tags: ["Webhooks"],
      summary: "Recent deliveries to an endpoint",
      description: `The ${RECENT_WEBHOOK_DELIVERIES} most recent deliveries, newest first, each with its attempts (status code, error, duration) and when the next retry is due.`,
    },
    auth: { scope: "subtitles:read", checkedBy: "middleware" },
    params: endpointId,
    responses: { "200": { description: "The deliveries", ...json(WebhookDeliveryListSchema) }, ...notFoundError },
    async handle(ctx, { deps }) {
      ctx.set("Cache-Control", "no-store");
      ctx.body = await listWebhookDeliveries(deps.db, principalOf(ctx.state).accountId, ctx.params.id ?? "");
    },
  }),
];
