import type Router from "@koa/router";
import type { Middleware } from "koa";
import { isTerminal } from "@caption/shared/api/job";
import { EditedWordSchema, MAX_RENDER_BODY_BYTES, RenderRequestOuterSchema } from "@caption/shared/api/render-request";
import { SubmissionRequestSchema } from "@caption/shared/api/submission";
import { cancelJob, pollJob } from "../../services/job-service.ts";
import { requestRender, requireOwnJob } from "../../services/render-service.ts";
import { submitJob } from "../../services/submission-service.ts";
import { getUsage } from "../../services/usage-service.ts";
import type { AppDeps } from "../app-deps.ts";
import type { AppState } from "../app-state.ts";
import { baseUrlOf } from "../base-url.ts";
import { idempotencyKeyOf, jsonBody } from "../json-body.ts";
import { actFor, authenticate, bearerKey, principalOf } from "../middleware/authenticate.ts";
import { createValidator } from "../validation.ts";

const submission = createValidator(SubmissionRequestSchema);
// A render body is checked in two steps: everything but the words here, then each word (shape and
// times together) once the source's duration is known, so the first bad word is the one reported.
const renderBody = createValidator(RenderRequestOuterSchema);
const editedWord = createValidator(EditedWordSchema);
const wordShape = (word: unknown, index: number) => editedWord.problemAt(word, `/words/${index}`);
const POLL_SECONDS = "5";

/** The authenticated job API: submit, poll, cancel, render again, usage. */
export function jobRoutes(router: Router<AppState>, deps: AppDeps): void {
  const write = authenticate(deps.db, "subtitles:write", deps.now);
  const read = authenticate(deps.db, "subtitles:read", deps.now);

  router.post("/v1/subtitles", write, ...jsonBody({ limit: "64kb", tooLargeIs413: false }), async (ctx) => {
    const request = submission.parse(ctx.request.body);
    const idempotencyKey = idempotencyKeyOf(ctx);
    const base = baseUrlOf(ctx, deps.publicBaseUrl);
    const response = await submitJob(
      { db: deps.db, queue: deps.queue, languages: deps.languages, baseUrl: base },
      { principal: principalOf(ctx.state), request, idempotencyKey },
    );
    ctx.state.log.info({ job_id: response.id, replayed: response.replayed }, response.replayed ? "submission replayed" : "job submitted");
    ctx.status = 202;
    ctx.set("Location", response.status_url);
    ctx.body = response;
  });

  // Polling authenticates inside its one statement rather than through the `read` middleware.
  router.get("/v1/jobs/:id", async (ctx) => {
    const { principal, job } = await pollJob(deps.db, deps.resultLinks, baseUrlOf(ctx, deps.publicBaseUrl), bearerKey(ctx), ctx.params.id ?? "", deps.now());
    actFor(ctx.state, principal);
    if (!isTerminal(job.status)) ctx.set("Retry-After", POLL_SECONDS);
    ctx.set("Cache-Control", "no-store");
    ctx.body = job;
  });

  router.post("/v1/jobs/:id/cancel", write, async (ctx) => {
    const result = await cancelJob(deps.db, principalOf(ctx.state).accountId, ctx.params.id ?? "");
    ctx.state.log.info({ job_id: result.id, status: result.status }, "cancel requested");
    ctx.body = result;
  });

  // The source is looked up before the body is read: a body for no job of the caller's is never parsed.
  const ownSource: Middleware<AppState> = async (ctx, next) => {
    await requireOwnJob(deps.db, principalOf(ctx.state).accountId, ctx.params.id ?? "");
    await next();
  };
  router.post("/v1/jobs/:id/renders", write, ownSource, ...jsonBody({ limit: MAX_RENDER_BODY_BYTES, tooLargeIs413: true }), async (ctx) => {
    const request = renderBody.parse(ctx.request.body);
    const idempotencyKey = idempotencyKeyOf(ctx);
    const base = baseUrlOf(ctx, deps.publicBaseUrl);
    const response = await requestRender(
      { db: deps.db, queue: deps.queue, baseUrl: base, wordShape },
      { principal: principalOf(ctx.state), sourceJobId: ctx.params.id ?? "", request, idempotencyKey, now: deps.now() },
    );
    ctx.state.log.info({ job_id: response.id, source_job_id: ctx.params.id, replayed: response.replayed }, response.replayed ? "render request replayed" : "render job submitted");
    ctx.status = 202;
    ctx.set("Location", response.status_url);
    ctx.body = response;
  });

  router.get("/v1/usage", read, async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = await getUsage(deps.db, principalOf(ctx.state).accountId);
  });
}
