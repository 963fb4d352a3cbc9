// The worker's public entry point: the worker itself, for the embedded mode and the end-to-end tests.
export { startCaptionWorker, type CaptionWorker } from "./runtime/caption-worker.ts";
export { CANCEL_FALLBACK_POLL_MS } from "./pipeline/cancel-watch.ts";
