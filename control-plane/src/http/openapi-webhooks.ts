import { WEBHOOK_EVENT_TYPES, WebhookPayloadSchema } from "@caption/shared/api/webhook";
import { json } from "./openapi-parts.ts";

// The webhooks of the OpenAPI document: requests this service makes, not routes it serves.

/** What the service POSTs to registered endpoints (OpenAPI 3.1 `webhooks`). */
export function webhooks() {
  const headers = {
    "webhook-id": { description: "The event's id: the same on every retry; drop duplicates by it", required: true, schema: { type: "string" } },
    "webhook-timestamp": { description: "Unix time of this attempt", required: true, schema: { type: "string" } },
    "webhook-signature": { description: "v1,<base64 HMAC-SHA256 of `id.timestamp.body`> with the endpoint's secret (Standard Webhooks)", required: true, schema: { type: "string" } },
  };
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${type.replace(".", "_")}_webhook`,
          tags: ["Webhooks"],
          summary: `The ${type} event`,
          description: `Sent to endpoints subscribed to ${type}; \`data\` is the Job as GET /v1/jobs/{id} returns it, with the status and progress of the event. Answer 2xx within 10 s; anything else is retried with exponential backoff until at least 24 hours after the event (27 hours by default).`,
          security: [],
          parameters: Object.entries(headers).map(([name, header]) => ({ name, in: "header", ...header })),
          requestBody: { required: true, ...json(WebhookPayloadSchema) },
          responses: { "200": { description: "Any 2xx answer acknowledges the delivery" } },
        },
      },
    ]),
  );
}
