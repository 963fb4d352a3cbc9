// Test support other packages use: an HTTP client for the API and the API under test.
export { apiRequest, type ApiRequestOptions, type ApiResponse } from "./api-request.ts";
export { assertErrorShape } from "./error-shape.ts";
export { startTestApi, type TestApi } from "./test-api.ts";
export { openEventStream, type EventStreamClient, type ServerSentEvent } from "./sse-client.ts";
