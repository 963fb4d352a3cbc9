import type Router from "@koa/router";
import bodyParser from "@koa/bodyparser";
import { isTerminal } from "@caption/shared/api/job";
import { SubmissionRequestSchema } from "@caption/shared/api/submission";
import { cancelJob, getJob } from "../../services/job-service.ts";
import { submitJob } from "../../services/submission-service.ts";
import { getUsage } from "../../services/usage-service.ts";
import type { AppDeps } from "../app-deps.ts";
import { invalidRequest } from "../../services/service-error.ts";
import type { AppState } from "../app-state.ts";
import { baseUrlOf } from "../base-url.ts";
import { authenticate, principalOf } from "../middleware/authenticate.ts";
import { createValidator } from "../validation.ts";

const submission = createValidator(SubmissionRequestSchema);
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const POLL_SECONDS = "5";

/** The authenticated job API: submit, poll, cancel, usage. */
export function jobRoutes(router: Router<AppState>, deps: AppDeps): void {
  const write = authenticate(deps.db, "subtitles:write", deps.now);
  const read = authenticate(deps.db, "subtitles:read", deps.now);
  const json = bodyParser({ enableTypes: ["json"], jsonLimit: "64kb", encoding: "utf-8",
    onError: () => {
      throw invalidRequest("request body must be a JSON object");
    },
  });

  router.post("/v1/subtitles", write, async (ctx, next) => {
    if (!ctx.is("application/json")) throw invalidRequest("Content-Type must be application/json");
    await next();
  }, json, async (ctx) => {
    const request = submission.parse(ctx.request.body);
    const rawKey = ctx.get("Idempotency-Key");
    if (rawKey !== "" && !IDEMPOTENCY_KEY.test(rawKey)) throw invalidRequest("Idempotency-Key must be 1 to 255 visible ASCII characters");
    const base = baseUrlOf(ctx, deps.publicBaseUrl);
    const response = await submitJob(
      { db: deps.db, queue: deps.queue, languages: deps.languages, baseUrl: base },
      { principal: principalOf(ctx.state), request, idempotencyKey: rawKey === "" ? undefined : rawKey },
    );
    ctx.state.log.info({ job_id: response.id, replayed: response.replayed }, response.replayed ? "submission replayed" : "job submitted");
    ctx.status = 202;
    ctx.set("Location", response.status_url);
    ctx.body = response;
  });

  router.get("/v1/jobs/:id", read, async (ctx) => {
    const job = await getJob(deps.db, deps.resultLinks, baseUrlOf(ctx, deps.publicBaseUrl), principalOf(ctx.state).accountId, ctx.params.id ?? "", deps.now());
    if (!isTerminal(job.status)) ctx.set("Retry-After", POLL_SECONDS);
    ctx.set("Cache-Control", "no-store");
    ctx.body = job;
  });

  router.post("/v1/jobs/:id/cancel", write, async (ctx) => {
    const result = await cancelJob(deps.db, principalOf(ctx.state).accountId, ctx.params.id ?? "");
    ctx.state.log.info({ job_id: result.id, status: result.status }, "cancel requested");
    ctx.body = result;
  });

  router.get("/v1/usage", read, async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    ctx.body = await getUsage(deps.db, principalOf(ctx.state).accountId);
  });
}
