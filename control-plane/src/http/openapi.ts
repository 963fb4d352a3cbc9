import type { TSchema } from "@sinclair/typebox";
import type { Scope } from "@caption/shared/api/scopes";
import { CancelResponseSchema, JobSchema } from "@caption/shared/api/job";
import { ErrorBodySchema } from "@caption/shared/api/error";
import { PresetListSchema } from "@caption/shared/api/preset";
import { RenderRequestSchema } from "@caption/shared/api/render-request";
import { SubmissionRequestSchema, SubmissionResponseSchema } from "@caption/shared/api/submission";
import { TranscriptSchema } from "@caption/shared/api/transcript";
import { UsageSchema } from "@caption/shared/api/usage";

/** Plain JSON Schema of a TypeBox schema: the same object that validates, minus TypeBox's symbols. */
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema, (key, value) => (key === "$id" ? undefined : value)));

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ content: { "application/json": { schema: ref(name) } } });
const error = (description: string) => ({ description, ...json("Error") });
const bearer = (scope: Scope) => [{ bearerAuth: [scope] }];
const jobIdParam = { name: "id", in: "path", required: true, schema: { type: "string" } };
const idempotencyKey = { name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", maxLength: 255 } };
const retryAfter = { "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait before retrying" } };

/** OpenAPI 3.1 description generated from the schemas the server validates with. */
export function buildOpenApiDocument(serverUrl: string) {
  return {
    openapi: "3.1.0",
    info: { title: "Video Captioning Service", version: "1.0.0", description: "Transcribes speech on-device and burns animated word-by-word captions into a video." },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } },
      schemas: {
        SubmissionRequest: plain(SubmissionRequestSchema),
        SubmissionResponse: plain(SubmissionResponseSchema),
        RenderRequest: plain(RenderRequestSchema),
        Job: plain(JobSchema),
        CancelResponse: plain(CancelResponseSchema),
        Usage: plain(UsageSchema),
        PresetList: plain(PresetListSchema),
        Transcript: plain(TranscriptSchema),
        Error: plain(ErrorBodySchema),
      },
    },
    paths: {
      "/v1/presets": {
        get: { operationId: "listPresets", summary: "All 16 caption presets", security: [], responses: { "200": { description: "The preset catalog", ...json("PresetList") } } },
      },
      "/v1/subtitles": {
        post: {
          operationId: "createSubtitles",
          summary: "Create a captioned-video job",
          security: bearer("subtitles:write"),
          parameters: [idempotencyKey],
          requestBody: { required: true, ...json("SubmissionRequest") },
          responses: {
            "202": { description: "Job accepted; poll status_url every 5 seconds", ...json("SubmissionResponse") },
            "400": error("Invalid request (INVALID_REQUEST, IDEMPOTENCY_KEY_MISMATCH)"),
            "401": error("Missing or invalid API key (UNAUTHORIZED, INSUFFICIENT_SCOPE)"),
            "402": error("No prepaid seconds available (INSUFFICIENT_CREDITS)"),
            "429": { description: "RATE_LIMITED or CONCURRENCY_LIMIT_EXCEEDED", headers: retryAfter, ...json("Error") },
            "503": { description: "SERVICE_UNAVAILABLE", headers: retryAfter, ...json("Error") },
          },
        },
      },
      "/v1/jobs/{id}": {
        get: {
          operationId: "getJob",
          summary: "A job's state, progress and result URLs",
          security: bearer("subtitles:read"),
          parameters: [jobIdParam],
          responses: {
            "200": { description: "The job; non-terminal responses carry Retry-After: 5", headers: retryAfter, ...json("Job") },
            "401": error("UNAUTHORIZED"),
            "404": error("NOT_FOUND"),
            "429": { description: "RATE_LIMITED", headers: retryAfter, ...json("Error") },
          },
        },
      },
      "/v1/jobs/{id}/cancel": {
        post: {
          operationId: "cancelJob",
          summary: "Cancel an unfinished job; terminal jobs keep their state",
          security: bearer("subtitles:write"),
          parameters: [jobIdParam],
          responses: { "200": { description: "Current status after the request", ...json("CancelResponse") }, "401": error("UNAUTHORIZED"), "404": error("NOT_FOUND") },
        },
      },
      "/v1/jobs/{id}/renders": {
        post: {
          operationId: "renderJobAgain",
          summary: "Render a completed job again with edited words, another preset or style: a new job without download or transcription",
          description:
            "Omitted fields are the source job's (its preset, its request style, its transcript's words). The new job goes queued → rendering → completed, " +
            "reserves and is charged ceil(duration) like any job, and carries source_job_id. Word rules beyond the schema: text not blank, start ≤ end ≤ the video's duration, starts in time order.",
          security: bearer("subtitles:write"),
          parameters: [jobIdParam, idempotencyKey],
          requestBody: { required: true, ...json("RenderRequest") },
          responses: {
            "202": { description: "Render job accepted; poll status_url every 5 seconds", ...json("SubmissionResponse") },
            "400": error("Invalid request, naming the first bad field such as words[3].start (INVALID_REQUEST, IDEMPOTENCY_KEY_MISMATCH)"),
            "401": error("Missing or invalid API key (UNAUTHORIZED, INSUFFICIENT_SCOPE)"),
            "402": error("No prepaid seconds available (INSUFFICIENT_CREDITS)"),
            "404": error("No such job, or another account's (NOT_FOUND)"),
            "409": error("The source job is not completed or its files have expired (SOURCE_NOT_RENDERABLE)"),
            "413": error("The body is over 4 MiB (PAYLOAD_TOO_LARGE)"),
            "429": { description: "RATE_LIMITED or CONCURRENCY_LIMIT_EXCEEDED", headers: retryAfter, ...json("Error") },
            "503": { description: "SERVICE_UNAVAILABLE", headers: retryAfter, ...json("Error") },
          },
        },
      },
      "/v1/usage": {
        get: {
          operationId: "getUsage",
          summary: "Prepaid seconds and concurrency",
          security: bearer("subtitles:read"),
          responses: { "200": { description: "Usage", ...json("Usage") }, "401": error("UNAUTHORIZED"), "429": { description: "RATE_LIMITED", headers: retryAfter, ...json("Error") } },
        },
      },
    },
  };
}
