import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { JobSchema } from "./job.ts";
import { LiteralUnion, Nullable } from "./style.ts";

/** A job's events: `data` is the Job. */
export const JOB_WEBHOOK_EVENT_TYPES = ["job.completed", "job.failed", "job.canceled", "job.progress"] as const;
export type JobWebhookEventType = (typeof JOB_WEBHOOK_EVENT_TYPES)[number];
/** An endpoint's own events, sent to the account's other endpoints: `data` is the endpoint. */
export const ENDPOINT_WEBHOOK_EVENT_TYPES = ["webhook_endpoint.disabled"] as const;
/** What a webhook endpoint can subscribe to; terminal events and endpoint events by default. */
export const WEBHOOK_EVENT_TYPES = [...JOB_WEBHOOK_EVENT_TYPES, ...ENDPOINT_WEBHOOK_EVENT_TYPES] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEventType[] = ["job.completed", "job.failed", "job.canceled", "webhook_endpoint.disabled"];
export const MAX_WEBHOOK_ENDPOINTS = 10;
/** An endpoint whose every attempt failed for this long, and at least DISABLE_AFTER_ATTEMPTS of them, is disabled. */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 3600 * 1000;
export const DISABLE_AFTER_ATTEMPTS = 20;
/** How many of an endpoint's deliveries its delivery list shows. */
export const RECENT_WEBHOOK_DELIVERIES = 50;

const EventTypeSchema = LiteralUnion(WEBHOOK_EVENT_TYPES);
export const WEBHOOK_ENDPOINT_STATUSES = ["enabled", "disabled"] as const;
const EndpointUrl = Type.String({ format: "uri", maxLength: 2048, pattern: "^[hH][tT][tT][pP][sS]://[^/?#@\\s]", description: "HTTPS URL that receives the deliveries; redirects are not followed" });

export const WebhookEndpointRequestSchema = Type.Object(
  {
    url: EndpointUrl,
    events: Type.Optional(Type.Array(EventTypeSchema, { minItems: 1, uniqueItems: true, description: "Default: job.completed, job.failed, job.canceled" })),
  },
  { additionalProperties: false, $id: "WebhookEndpointRequest" },
);
export type WebhookEndpointRequest = Static<typeof WebhookEndpointRequestSchema>;

const endpointFields = {
  id: Type.String({ description: "we_ followed by a 26-character ULID" }),
  url: Type.String({ format: "uri" }),
  events: Type.Array(EventTypeSchema),
  status: LiteralUnion(WEBHOOK_ENDPOINT_STATUSES, { description: "disabled: deliveries stopped after days of failed attempts; POST …/enable resumes them" }),
  disabled_at: Nullable(Type.String({ format: "date-time", description: "When it was disabled; null while enabled" })),
  disabled_reason: Nullable(Type.String({ description: "Why it was disabled; null while enabled" })),
  created_at: Type.String({ format: "date-time" }),
};

export const WebhookEndpointSchema = Type.Object(endpointFields, { additionalProperties: false, $id: "WebhookEndpoint" });
export type WebhookEndpoint = Static<typeof WebhookEndpointSchema>;

export const WebhookEndpointCreatedSchema = Type.Object(
  { ...endpointFields, secret: Type.String({ description: "Standard Webhooks signing secret (whsec_…); shown only in this response" }) },
  { additionalProperties: false, $id: "WebhookEndpointCreated" },
);
export type WebhookEndpointCreated = Static<typeof WebhookEndpointCreatedSchema>;

export const WebhookEndpointListSchema = Type.Object(
  { webhook_endpoints: Type.Array(WebhookEndpointSchema) },
  { additionalProperties: false, $id: "WebhookEndpointList" },
);
export type WebhookEndpointList = Static<typeof WebhookEndpointListSchema>;

/** A delivery's state: still being tried, answered 2xx, or given up. */
export const WEBHOOK_DELIVERY_STATES = ["pending", "delivered", "failed"] as const;
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];

export const WebhookAttemptSchema = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    attempted_at: Type.String({ format: "date-time" }),
    duration_ms: Type.Integer({ minimum: 0 }),
    status_code: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when no response came" })),
    error: Nullable(Type.String({ description: "Why the attempt failed; null for a 2xx answer" })),
  },
  { additionalProperties: false },
);

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.String(),
    event_id: Type.String({ description: "The webhook-id header: the same on every retry" }),
    type: EventTypeSchema,
    job_id: Nullable(Type.String({ description: "null for an endpoint's own event (webhook_endpoint.disabled)" })),
    status: LiteralUnion(WEBHOOK_DELIVERY_STATES),
    next_attempt_at: Nullable(Type.String({ format: "date-time", description: "When the next retry is due; null once delivered or given up" })),
    created_at: Type.String({ format: "date-time" }),
    attempts: Type.Array(WebhookAttemptSchema, { description: "Oldest first" }),
  },
  { additionalProperties: false },
);
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

export const WebhookDeliveryListSchema = Type.Object(
  { deliveries: Type.Array(WebhookDeliverySchema, { description: `The ${RECENT_WEBHOOK_DELIVERIES} most recent, newest first` }) },
  { additionalProperties: false, $id: "WebhookDeliveryList" },
);
export type WebhookDeliveryList = Static<typeof WebhookDeliveryListSchema>;

/** A delivery's body (Standard Webhooks), signed as sent: `{ type, timestamp, data }`. */
const eventPayload = <const T extends readonly string[], D extends TSchema>(types: T, data: D, $id: string) =>
  Type.Object(
    { type: LiteralUnion(types), timestamp: Type.String({ format: "date-time", description: "When the event happened" }), data },
    { additionalProperties: false, $id },
  );

/** The body of a job's event. */
export const WebhookPayloadSchema = eventPayload(JOB_WEBHOOK_EVENT_TYPES, JobSchema, "WebhookPayload");
export type WebhookPayload = Static<typeof WebhookPayloadSchema>;

/** The body of an endpoint's own event, sent to the account's other endpoints subscribed to it. */
export const WebhookEndpointEventPayloadSchema = eventPayload(ENDPOINT_WEBHOOK_EVENT_TYPES, WebhookEndpointSchema, "WebhookEndpointEventPayload");
export type WebhookEndpointEventPayload = Static<typeof WebhookEndpointEventPayloadSchema>;
