import { SERVED_FILES } from "@caption/shared/storage/result-files";
import { DISABLE_AFTER_ATTEMPTS, DISABLE_AFTER_FAILING_MS, MAX_WEBHOOK_ENDPOINTS, RECENT_WEBHOOK_DELIVERIES, WEBHOOK_EVENT_TYPES } from "@caption/shared/api/webhook";
import { bearer, error, idParam, json, needs, rateLimited, ref } from "./openapi-parts.ts";

// The paths beyond the spec's five (DESIGN.md §7b): result downloads, the job event stream, webhook
// endpoints, and the webhooks themselves.

const endpointIdParam = idParam("The webhook endpoint's id (we_…)");

/** The media types result files are served with (SERVED_FILES), each with its schema. */
function resultFileContent(): Record<string, { schema: object }> {
  const schemaOf = (mediaType: string) =>
    mediaType === "application/json"
      ? { oneOf: [ref("Transcript"), ref("QualityReport")] }
      : /^(video|image)\//.test(mediaType)
        ? { type: "string", contentMediaType: mediaType }
        : { type: "string" };
  return Object.fromEntries(SERVED_FILES.map(({ contentType }) => {
    const mediaType = contentType.split(";")[0]!;
    return [mediaType, { schema: schemaOf(mediaType) }];
  }));
}

export function fileAndEventPaths() {
  return {
    "/v1/files/{job}/{file}": {
      get: {
        operationId: "downloadResultFile",
        tags: ["Files"],
        summary: "Download a result file through its signed link",
        description:
          "The links in a completed Job (video.url, poster_url, preview_strip_url and overlay_urls, subtitles.srt_url, vtt_url, ass_url, transcript_url and quality_url) point here; they need no API key and expire with the files. Supports Range requests.",
        security: [],
        parameters: [
          { name: "job", in: "path", required: true, description: "The job's id", schema: { type: "string" } },
          { name: "file", in: "path", required: true, description: "The result file", schema: { type: "string", enum: SERVED_FILES.map((file) => file.name) } },
          { name: "expires", in: "query", required: true, description: "Unix time the link stops working", schema: { type: "string" } },
          { name: "signature", in: "query", required: true, description: "HMAC of the file and expiry", schema: { type: "string" } },
        ],
        responses: {
          "200": {
            description: "The file",
            content: resultFileContent(),
          },
          "206": { description: "The requested byte range", content: { "application/octet-stream": { schema: { type: "string" } } } },
          "403": error("LINK_EXPIRED_OR_INVALID"),
          "404": error("NOT_FOUND: the file no longer exists"),
          "416": error("RANGE_NOT_SATISFIABLE"),
        },
      },
    },
    "/v1/jobs/{id}/events": {
      get: {
        operationId: "streamJobEvents",
        tags: ["Jobs"],
        summary: "Follow a job live (Server-Sent Events)",
        description:
          "A text/event-stream of the job's history and then its changes as they happen: `event: status` on every change of state, `event: progress` as progress rises, each with `id:` (send it back as `Last-Event-ID` to resume after it) and `data:` a JobEvent. " +
          `A comment line \`: heartbeat\` comes every 15 s. The stream ends after the terminal state (completed, failed, canceled); fetch the job for its result links. ${needs("subtitles:read")}`,
        ...bearer("subtitles:read"),
        parameters: [
          idParam("The job's id (job_…)"),
          { name: "Last-Event-ID", in: "header", required: false, description: "Resume after this event id", schema: { type: "string" } },
        ],
        responses: {
          "200": { description: "The event stream; each event's data is a JobEvent", content: { "text/event-stream": { schema: { type: "string", description: "Server-Sent Events; each data line is a JobEvent", "x-event-data": ref("JobEvent") }, example: 'id: 42\nevent: status\ndata: {"job_id":"job_01…","status":"rendering","progress":45,"at":"2026-12-16T09:00:00.000Z"}\n\n' } } },
          "204": { description: "The job is finished and Last-Event-ID is its last event: nothing more will come (EventSource stops reconnecting)" },
          "401": error("UNAUTHORIZED"),
          "404": error("NOT_FOUND"),
          "429": rateLimited,
        },
      },
    },
  };
}

export function webhookPaths() {
  return {
    "/v1/webhook_endpoints": {
      post: {
        operationId: "createWebhookEndpoint",
        tags: ["Webhooks"],
        summary: "Register a webhook endpoint",
        description: `Deliveries of the chosen events (default: the three terminal ones and webhook_endpoint.disabled) go to this HTTPS URL, signed with the returned secret, which is shown only here. At most ${MAX_WEBHOOK_ENDPOINTS} endpoints per account. ${needs("subtitles:write")}`,
        ...bearer("subtitles:write"),
        requestBody: { required: true, ...json("WebhookEndpointRequest") },
        responses: {
          "201": { description: "The endpoint with its signing secret", ...json("WebhookEndpointCreated") },
          "400": error(`INVALID_REQUEST: a rule broken, a URL that is not HTTPS or points to a private address, or ${MAX_WEBHOOK_ENDPOINTS} endpoints already`),
          "401": error("UNAUTHORIZED, INSUFFICIENT_SCOPE"),
          "429": rateLimited,
        },
      },
      get: {
        operationId: "listWebhookEndpoints",
        tags: ["Webhooks"],
        summary: "The account's webhook endpoints",
        description: `Every endpoint of the account, oldest first, without secrets. ${needs("subtitles:read")}`,
        ...bearer("subtitles:read"),
        responses: { "200": { description: "The endpoints", ...json("WebhookEndpointList") }, "401": error("UNAUTHORIZED"), "429": rateLimited },
      },
    },
    "/v1/webhook_endpoints/{id}": {
      delete: {
        operationId: "deleteWebhookEndpoint",
        tags: ["Webhooks"],
        summary: "Remove a webhook endpoint",
        description: `Removes the endpoint; its pending deliveries are dropped. ${needs("subtitles:write")}`,
        ...bearer("subtitles:write"),
        parameters: [endpointIdParam],
        responses: { "204": { description: "Removed" }, "401": error("UNAUTHORIZED, INSUFFICIENT_SCOPE"), "404": error("NOT_FOUND"), "429": rateLimited },
      },
    },
    "/v1/webhook_endpoints/{id}/enable": {
      post: {
        operationId: "enableWebhookEndpoint",
        tags: ["Webhooks"],
        summary: "Enable a disabled webhook endpoint",
        description: `An endpoint whose every attempt failed for ${DISABLE_AFTER_FAILING_MS / 86_400_000} days (${DISABLE_AFTER_ATTEMPTS} attempts at least) is disabled: no deliveries are queued for it and its pending ones are given up. This enables it again with its failures forgotten; events from now on are delivered. ${needs("subtitles:write")}`,
        ...bearer("subtitles:write"),
        parameters: [endpointIdParam],
        responses: { "200": { description: "The endpoint, enabled", ...json("WebhookEndpoint") }, "401": error("UNAUTHORIZED, INSUFFICIENT_SCOPE"), "404": error("NOT_FOUND"), "429": rateLimited },
      },
    },
    "/v1/webhook_endpoints/{id}/deliveries": {
      get: {
        operationId: "listWebhookDeliveries",
        tags: ["Webhooks"],
        summary: "Recent deliveries to an endpoint",
        description: `The ${RECENT_WEBHOOK_DELIVERIES} most recent deliveries, newest first, each with its attempts (status code, error, duration) and when the next retry is due. ${needs("subtitles:read")}`,
        ...bearer("subtitles:read"),
        parameters: [endpointIdParam],
        responses: { "200": { description: "The deliveries", ...json("WebhookDeliveryList") }, "401": error("UNAUTHORIZED"), "404": error("NOT_FOUND"), "429": rateLimited },
      },
    },
  };
}

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
          description: `${type.startsWith("job.") ? `Sent to endpoints subscribed to ${type}; \`data\` is the Job as GET /v1/jobs/{id} returns it, with the status and progress of the event.` : `Sent to the account's other endpoints subscribed to ${type} when an endpoint is disabled after days of failures; \`data\` is that endpoint.`} Answer 2xx within 10 s; anything else is retried with exponential backoff until at least 24 hours after the event (27 hours by default).`,
          security: [],
          parameters: Object.entries(headers).map(([name, header]) => ({ name, in: "header", ...header })),
          requestBody: { required: true, ...json(type.startsWith("job.") ? "WebhookPayload" : "WebhookEndpointEventPayload") },
          responses: { "200": { description: "Any 2xx answer acknowledges the delivery" } },
        },
      },
    ]),
  );
}
