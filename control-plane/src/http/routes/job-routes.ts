import { isTerminal, CancelResponseSchema, JobSchema } from "@caption/shared/api/job";
import { EditedWordSchema, MAX_RENDER_BODY_BYTES, RenderRequestOuterSchema, RenderRequestSchema } from "@caption/shared/api/render-request";
import { SubmissionRequestSchema, SubmissionResponseSchema } from "@caption/shared/api/submission";
import { UsageSchema } from "@caption/shared/api/usage";
import { cancelJob, pollJob } from "../../services/job-service.ts";
import { requestRender, requireOwnJob } from "../../services/render-service.ts";
import { submitJob } from "../../services/submission-service.ts";
import { getUsage } from "../../services/usage-service.ts";
import { baseUrlOf } from "../base-url.ts";
import { actFor, bearerKey, principalOf } from "../middleware/authenticate.ts";
import { error, jobCreationErrors, json, notFoundError, retryAfter } from "../openapi-parts.ts";
import { jobIdParam } from "../path-params.ts";
import { defineRoute } from "../route-spec.ts";
import { createValidator } from "../validation.ts";

// A render body is checked in two steps: everything but the words by the route's schema, then each
// word (shape and times together) once the source's duration is known, so the first bad word is the one reported.
const editedWord = createValidator(EditedWordSchema);
const wordShape = (word: unknown, index: number) => editedWord.problemAt(word, `/words/${index}`);
const POLL_SECONDS = "5";
const jobId = { id: jobIdParam };

/** The authenticated job API: submit, poll, cancel, render again, usage. */
export const jobRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/subtitles",
    doc: {
      operationId: "createSubtitles",
      tags: ["Jobs"],
      summary: "Create a captioned-video job",
      description: "Queues a job for the video at `video_url` or the finished upload `upload_id` (exactly one). Repeat an `Idempotency-Key` to retry safely.",
    },
    auth: { scope: "subtitles:write", checkedBy: "middleware" },
    body: { schema: SubmissionRequestSchema, limit: "64kb", tooLargeIs413: false },
    idempotent: true,
    responses: {
      "202": { description: "Job accepted; poll status_url every 5 seconds", ...json(SubmissionResponseSchema) },
      "400": error("Invalid request, both or neither of video_url and upload_id (INVALID_REQUEST, IDEMPOTENCY_KEY_MISMATCH)"),
      ...jobCreationErrors,
      "404": error("upload_id is no upload of the account (NOT_FOUND)"),
      "409": error("The upload has not received all its bytes (UPLOAD_INCOMPLETE)"),
      "410": error("The upload expired unfinished or was deleted 24 h after completion (UPLOAD_EXPIRED)"),
    },
    async handle(ctx, { deps, body: request, idempotencyKey }) {
      const base = baseUrlOf(ctx, deps.publicBaseUrl);
      const response = await submitJob(
        { db: deps.db, queue: deps.queue, languages: deps.languages, baseUrl: base },
        { principal: principalOf(ctx.state), request, idempotencyKey, now: deps.now() },
      );
      ctx.state.log.info({ job_id: response.id, replayed: response.replayed }, response.replayed ? "submission replayed" : "job submitted");
      ctx.status = 202;
      ctx.set("Location", response.status_url);
      ctx.body = response;
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/jobs/{id}",
    doc: {
      operationId: "getJob",
      tags: ["Jobs"],
      summary: "A job's state, progress and result URLs",
      description: "Poll every 5 seconds until the job is completed, failed or canceled; result links appear once it is completed.",
    },
    // Polling authenticates inside its one statement rather than through middleware.
    auth: { scope: "subtitles:read", checkedBy: "handler" },
    params: jobId,
    responses: {
      "200": { description: "The job; non-terminal responses carry Retry-After: 5", headers: retryAfter, ...json(JobSchema) },
      ...notFoundError,
    },
    async handle(ctx, { deps }) {
      const { principal, job } = await pollJob(deps.db, deps.rateRefusals, deps.resultLinks, baseUrlOf(ctx, deps.publicBaseUrl), bearerKey(ctx), ctx.params.id ?? "", deps.now());
      actFor(ctx.state, principal);
      if (!isTerminal(job.status)) ctx.set("Retry-After", POLL_SECONDS);
      ctx.set("Cache-Control", "no-store");
      ctx.body = job;
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/jobs/{id}/cancel",
    doc: {
      operationId: "cancelJob",
      tags: ["Jobs"],
      summary: "Cancel an unfinished job; terminal jobs keep their state",
      description: "Stops the job's work and releases its reservation; a completed, failed or canceled job is not changed.",
    },
    auth: { scope: "subtitles:write", checkedBy: "middleware" },
    params: jobId,
    responses: { "200": { description: "Current status after the request", ...json(CancelResponseSchema) }, ...notFoundError },
    async handle(ctx, { deps }) {
      const result = await cancelJob(deps.db, principalOf(ctx.state).accountId, ctx.params.id ?? "");
      ctx.state.log.info({ job_id: result.id, status: result.status }, "cancel requested");
      ctx.body = result;
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/jobs/{id}/renders",
    doc: {
      operationId: "renderJobAgain",
      tags: ["Jobs"],
      summary: "Render a completed job again with edited words, another preset or style: a new job without download or transcription",
      description:
        "Omitted fields are the source job's (its preset, its request style, its transcript's words). The new job goes queued → rendering → completed, " +
        "reserves and is charged ceil(duration) like any job, and carries source_job_id. Word rules beyond the schema: text not blank, start ≤ end ≤ the video's duration, starts in time order; the words are checked in order, each against every rule, so a 400 names the lowest bad index.",
    },
    auth: { scope: "subtitles:write", checkedBy: "middleware" },
    params: jobId,
    // The source is looked up before the body is read: a body for no job of the caller's is never parsed.
    beforeBody: (ctx, deps) => requireOwnJob(deps.db, principalOf(ctx.state).accountId, ctx.params.id ?? ""),
    body: { schema: RenderRequestOuterSchema, documentAs: RenderRequestSchema, limit: MAX_RENDER_BODY_BYTES, tooLargeIs413: true },
    idempotent: true,
    responses: {
      "202": { description: "Render job accepted; poll status_url every 5 seconds", ...json(SubmissionResponseSchema) },
      "400": error("Invalid request, naming the first bad field such as words[3].start (INVALID_REQUEST, IDEMPOTENCY_KEY_MISMATCH)"),
      ...jobCreationErrors,
      "404": error("No such job, or another account's (NOT_FOUND)"),
      "409": error("The source job is not completed or its files have expired (SOURCE_NOT_RENDERABLE)"),
      "413": error("The body is over 4 MiB (PAYLOAD_TOO_LARGE)"),
    },
    async handle(ctx, { deps, body: request, idempotencyKey }) {
      const base = baseUrlOf(ctx, deps.publicBaseUrl);
      const response = await requestRender(
        { db: deps.db, queue: deps.queue, baseUrl: base, wordShape },
        { principal: principalOf(ctx.state), sourceJobId: ctx.params.id ?? "", request, idempotencyKey, now: deps.now() },
      );
      ctx.state.log.info({ job_id: response.id, source_job_id: ctx.params.id, replayed: response.replayed }, response.replayed ? "render request replayed" : "render job submitted");
      ctx.status = 202;
      ctx.set("Location", response.status_url);
      ctx.body = response;
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/usage",
    doc: {
      operationId: "getUsage",
      tags: ["Usage"],
      summary: "Prepaid seconds and concurrency",
      description: "The account's balance from its credit ledger, its unfinished jobs and its concurrency limit.",
    },
    auth: { scope: "subtitles:read", checkedBy: "middleware" },
    responses: { "200": { description: "Usage", ...json(UsageSchema) } },
    async handle(ctx, { deps }) {
      ctx.set("Cache-Control", "no-store");
      ctx.body = await getUsage(deps.db, principalOf(ctx.state).accountId);
    },
  }),
];
