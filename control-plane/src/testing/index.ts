// Test support other packages use: an HTTP client for the API, the API under test, an event-stream
// client, webhook receivers that verify signatures (on shared's HTTPS test server), and the harness that runs
// the service's entry points in processes of their own (tests and benchmarks).
export { apiRequest, type ApiRequestOptions, type ApiResponse } from "./api-request.ts";
export { assertErrorShape } from "./error-shape.ts";
export { startTestApi, type TestApi } from "./test-api.ts";
export { openEventStream, type EventStreamClient, type ServerSentEvent } from "./sse-client.ts";
export { webhookReceiver, type Answer, type ReceivedWebhook, type RoutingServer, type WebhookReceiver } from "./webhook-receiver.ts";
export { ENTRY_POINTS, spawnService, type LogEntry, type ServiceEntry, type ServiceProcess, type SpawnServiceOptions } from "../runtime/service-process.ts";
export { startEmbeddedService, type EmbeddedService, type EmbeddedServiceOptions } from "../runtime/embedded-service.ts";
export { measureRenderBodies } from "./realistic-render-body.ts";
export { dryRelayHandOver } from "./relay-hand-over.ts";
export { insertAccountWithEndpoints } from "./webhook-endpoint-rows.ts";
