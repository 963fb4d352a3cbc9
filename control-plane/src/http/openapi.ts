import { CancelResponseSchema, JobSchema } from "@caption/shared/api/job";
import { ErrorBodySchema } from "@caption/shared/api/error";
import { JobEventSchema } from "@caption/shared/api/job-event";
import { PresetListSchema } from "@caption/shared/api/preset";
import { PREVIEW_CONTENT_TYPES, PreviewRequestSchema } from "@caption/shared/api/preview";
import { RenderRequestSchema } from "@caption/shared/api/render-request";
import { SubmissionRequestSchema, SubmissionResponseSchema } from "@caption/shared/api/submission";
import { TranscriptSchema } from "@caption/shared/api/transcript";
import { QualityReportSchema } from "@caption/shared/api/quality-report";
import { UsageSchema } from "@caption/shared/api/usage";
import { WebhookDeliveryListSchema, WebhookEndpointCreatedSchema, WebhookEndpointListSchema, WebhookEndpointEventPayloadSchema, WebhookEndpointRequestSchema, WebhookEndpointSchema, WebhookPayloadSchema } from "@caption/shared/api/webhook";
import { bearer, error, idParam, jobCreationErrors, json, needs, plain, rateLimited, retryAfter } from "./openapi-parts.ts";
import { fileAndEventPaths, webhookPaths, webhooks } from "./openapi-notification-paths.ts";

const jobIdParam = idParam("The job's id (job_…)");
const idempotencyKey = { name: "Idempotency-Key", in: "header", required: false, description: "1–255 visible ASCII characters; remembered 24 h per account", schema: { type: "string", maxLength: 255 } };

/** OpenAPI 3.1 description generated from the schemas the server validates with. */
export function buildOpenApiDocument(serverUrl: string) {
  return {
    openapi: "3.1.0",
    info: {
      title: "Video Captioning Service",
      version: "1.0.0",
      description: "Transcribes speech on-device and burns animated word-by-word captions into a video. Jobs are asynchronous: poll a job, stream its events, or register a webhook endpoint.",
      contact: { name: "Caption service operators", url: `${serverUrl}/docs` },
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: serverUrl, description: "This service" }],
    tags: [
      { name: "Presets", description: "The caption style presets" },
      { name: "Jobs", description: "Submit, follow and cancel captioning jobs" },
      { name: "Previews", description: "A look drawn at once, before any job: no charge" },
      { name: "Files", description: "Result downloads behind signed links" },
      { name: "Usage", description: "Prepaid seconds and limits" },
      { name: "Webhooks", description: "Account-level endpoints that receive signed job events (Standard Webhooks)" },
    ],
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "API key: Authorization: Bearer <API_KEY>. Scopes: subtitles:write (submit, cancel, manage webhooks; implies read), subtitles:read (jobs, usage, webhook listings)." } },
      schemas: {
        SubmissionRequest: plain(SubmissionRequestSchema),
        SubmissionResponse: plain(SubmissionResponseSchema),
        RenderRequest: plain(RenderRequestSchema),
        PreviewRequest: plain(PreviewRequestSchema),
        Job: plain(JobSchema),
        JobEvent: plain(JobEventSchema),
        CancelResponse: plain(CancelResponseSchema),
        Usage: plain(UsageSchema),
        PresetList: plain(PresetListSchema),
        Transcript: plain(TranscriptSchema),
        QualityReport: plain(QualityReportSchema),
        WebhookEndpointRequest: plain(WebhookEndpointRequestSchema),
        WebhookEndpoint: plain(WebhookEndpointSchema),
        WebhookEndpointCreated: plain(WebhookEndpointCreatedSchema),
        WebhookEndpointList: plain(WebhookEndpointListSchema),
        WebhookDeliveryList: plain(WebhookDeliveryListSchema),
        WebhookPayload: plain(WebhookPayloadSchema),
        WebhookEndpointEventPayload: plain(WebhookEndpointEventPayloadSchema),
        Error: plain(ErrorBodySchema),
      },
    },
    paths: {
      "/v1/presets": {
        get: {
          operationId: "listPresets",
          tags: ["Presets"],
          summary: "All 16 caption presets",
          description: "The preset catalog with each preset's default style and the style fields it honours. No API key needed.",
          security: [],
          responses: { "200": { description: "The preset catalog", ...json("PresetList") } },
        },
      },
      "/v1/subtitles": {
        post: {
          operationId: "createSubtitles",
          tags: ["Jobs"],
          summary: "Create a captioned-video job",
          description: `Queues a job for the video at \`video_url\`. Repeat an \`Idempotency-Key\` to retry safely. ${needs("subtitles:write")}`,
          ...bearer("subtitles:write"),
          parameters: [idempotencyKey],
          requestBody: { required: true, ...json("SubmissionRequest") },
          responses: {
            "202": { description: "Job accepted; poll status_url every 5 seconds", ...json("SubmissionResponse") },
            "400": error("Invalid request (INVALID_REQUEST, IDEMPOTENCY_KEY_MISMATCH)"),
            ...jobCreationErrors,
          },
        },
      },
      "/v1/jobs/{id}": {
        get: {
          operationId: "getJob",
          tags: ["Jobs"],
          summary: "A job's state, progress and result URLs",
          description: `Poll every 5 seconds until the job is completed, failed or canceled; result links appear once it is completed. ${needs("subtitles:read")}`,
          ...bearer("subtitles:read"),
          parameters: [jobIdParam],
          responses: {
            "200": { description: "The job; non-terminal responses carry Retry-After: 5", headers: retryAfter, ...json("Job") },
            "401": error("UNAUTHORIZED"),
            "404": error("NOT_FOUND"),
            "429": rateLimited,
          },
        },
      },
      "/v1/jobs/{id}/cancel": {
        post: {
          operationId: "cancelJob",
          tags: ["Jobs"],
          summary: "Cancel an unfinished job; terminal jobs keep their state",
          description: `Stops the job's work and releases its reservation; a completed, failed or canceled job is not changed. ${needs("subtitles:write")}`,
          ...bearer("subtitles:write"),
          parameters: [jobIdParam],
          responses: { "200": { description: "Current status after the request", ...json("CancelResponse") }, "401": error("UNAUTHORIZED"), "404": error("NOT_FOUND") },
        },
      },
      "/v1/jobs/{id}/renders": {
        post: {
          operationId: "renderJobAgain",
          tags: ["Jobs"],
          summary: "Render a completed job again with edited words, another preset or style: a new job without download or transcription",
          description:
            "Omitted fields are the source job's (its preset, its request style, its transcript's words). The new job goes queued → rendering → completed, " +
            "reserves and is charged ceil(duration) like any job, and carries source_job_id. Word rules beyond the schema: text not blank, start ≤ end ≤ the video's duration, starts in time order; the words are checked in order, each against every rule, so a 400 names the lowest bad index. " +
            needs("subtitles:write"),
          ...bearer("subtitles:write"),
          parameters: [jobIdParam, idempotencyKey],
          requestBody: { required: true, ...json("RenderRequest") },
          responses: {
            "202": { description: "Render job accepted; poll status_url every 5 seconds", ...json("SubmissionResponse") },
            "400": error("Invalid request, naming the first bad field such as words[3].start (INVALID_REQUEST, IDEMPOTENCY_KEY_MISMATCH)"),
            ...jobCreationErrors,
            "404": error("No such job, or another account's (NOT_FOUND)"),
            "409": error("The source job is not completed or its files have expired (SOURCE_NOT_RENDERABLE)"),
            "413": error("The body is over 16 MiB (PAYLOAD_TOO_LARGE)"),
          },
        },
      },
      "/v1/previews": {
        post: {
          operationId: "createPreview",
          tags: ["Previews"],
          summary: "A still or a short clip of a preset and style, drawn by the same painter as a job's video",
          description:
            "Answers synchronously with the picture's bytes: png or webp, the frame at `at`; mp4, up to 5 s of the animation. Over a neutral checkerboard, or over a frame of one of the account's completed jobs (`background`). " +
            "A still and the same instant of a rendered job are the same pixels. Never charged; its own rate limit per key (PREVIEW_RATE_LIMIT_PER_MINUTE, 60 by default) besides the key's. " +
            "Workers draw previews: past the deadline (2 s for a still, 10 s for a clip), or with no worker running, the answer is 503 with Retry-After. " +
            needs("subtitles:write"),
          ...bearer("subtitles:write"),
          requestBody: { required: true, ...json("PreviewRequest") },
          responses: {
            "200": {
              description: "The preview",
              headers: { "Cache-Control": { schema: { type: "string" }, description: "no-store" } },
              content: Object.fromEntries(Object.values(PREVIEW_CONTENT_TYPES).map((type) => [type, { schema: { type: "string", contentMediaType: type } }])),
            },
            "400": error("Invalid request, naming the field: sizes over 1920 × 1080 either way or odd for mp4, at outside the words, text over 500 characters, an unknown format, text and words together… (INVALID_REQUEST)"),
            "401": error("Missing or invalid API key (UNAUTHORIZED, INSUFFICIENT_SCOPE)"),
            "404": error("background.job_id is no job of the account (NOT_FOUND)"),
            "409": error("background.job_id is not completed, or its files have expired (SOURCE_NOT_RENDERABLE)"),
            "413": error("The body is over 64 KiB (PAYLOAD_TOO_LARGE)"),
            "429": rateLimited,
            "503": { description: "SERVICE_UNAVAILABLE: not drawn within the deadline, or no worker is running", headers: retryAfter, ...json("Error") },
          },
        },
      },
      "/v1/usage": {
        get: {
          operationId: "getUsage",
          tags: ["Usage"],
          summary: "Prepaid seconds and concurrency",
          description: `The account's balance from its credit ledger, its unfinished jobs and its concurrency limit. ${needs("subtitles:read")}`,
          ...bearer("subtitles:read"),
          responses: { "200": { description: "Usage", ...json("Usage") }, "401": error("UNAUTHORIZED"), "429": rateLimited },
        },
      },
      ...fileAndEventPaths(),
      ...webhookPaths(),
    },
    webhooks: webhooks(),
  };
}
