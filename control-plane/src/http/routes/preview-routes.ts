import { PREVIEW_CONTENT_TYPES, PreviewRequestSchema } from "@caption/shared/api/preview";
import { ErrorBodySchema } from "@caption/shared/api/error";
import { requestPreview } from "../../services/preview-service.ts";
import { principalOf } from "../middleware/authenticate.ts";
import { error, json, retryAfter } from "../openapi-parts.ts";
import { defineRoute } from "../route-spec.ts";

/** POST /v1/previews: a still or a short clip of a look, answered with its bytes; no job, no charge. */
export const previewRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/previews",
    doc: {
      operationId: "createPreview",
      tags: ["Previews"],
      summary: "A still or a short clip of a preset and style, drawn by the same painter as a job's video",
      description:
        "Answers synchronously with the picture's bytes: png or webp, the frame at `at`; mp4, up to 5 s of the animation. Over a neutral checkerboard, or over a frame of one of the account's completed jobs (`background`). " +
        "A still and the same instant of a rendered job are the same pixels. Never charged; its own rate limit per key (PREVIEW_RATE_LIMIT_PER_MINUTE, 60 by default) besides the key's. " +
        "Workers draw previews: past the deadline (2 s for a still, 10 s for a clip), or with no worker running, the answer is 503 with Retry-After.",
    },
    auth: { scope: "subtitles:write", checkedBy: "middleware" },
    body: { schema: PreviewRequestSchema, limit: "64kb", tooLargeIs413: true },
    responses: {
      "200": {
        description: "The preview",
        headers: { "Cache-Control": { schema: { type: "string" }, description: "no-store" } },
        content: Object.fromEntries(Object.values(PREVIEW_CONTENT_TYPES).map((type) => [type, { schema: { type: "string", contentMediaType: type } }])),
      },
      "400": error("Invalid request, naming the field: sizes over 1920 × 1080 either way or odd for mp4, at outside the words, text over 500 characters, an unknown format, text and words together… (INVALID_REQUEST)"),
      "404": error("background.job_id is no job of the account (NOT_FOUND)"),
      "409": error("background.job_id is not completed, or its files have expired (SOURCE_NOT_RENDERABLE)"),
      "413": error("The body is over 64 KiB (PAYLOAD_TOO_LARGE)"),
      "503": { description: "SERVICE_UNAVAILABLE: not drawn within the deadline, or no worker is running", headers: retryAfter, ...json(ErrorBodySchema) },
    },
    async handle(ctx, { deps, body: request }) {
      const started = performance.now();
      const services = { db: deps.db, queue: deps.queue, listener: deps.listener, limits: deps.previewLimits, now: deps.now };
      const preview = await requestPreview(services, principalOf(ctx.state), request);
      ctx.state.log.info({ format: request.format, preset: request.preset, bytes: preview.body.length, ms: Math.round(performance.now() - started) }, "preview answered");
      ctx.set("Cache-Control", "no-store");
      ctx.type = preview.contentType;
      ctx.body = preview.body;
    },
  }),
];
