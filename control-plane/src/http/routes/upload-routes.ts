import type Router from "@koa/router";
import { UPLOAD_ID_PATTERN, UploadRequestSchema } from "@caption/shared/api/upload";
import { findUpload } from "../../db/upload-repository.ts";
import { notFound } from "../../services/service-error.ts";
import { createUpload, uploadExpired, uploadSigningKey, UPLOADS_ROUTE } from "../../services/upload-service.ts";
import type { AppDeps } from "../app-deps.ts";
import type { AppState } from "../app-state.ts";
import { baseUrlOf } from "../base-url.ts";
import { jsonBody } from "../json-body.ts";
import { authenticate, principalOf } from "../middleware/authenticate.ts";
import { createValidator } from "../validation.ts";

const uploadRequest = createValidator(UploadRequestSchema);
const UPLOAD_ID = new RegExp(UPLOAD_ID_PATTERN);
const TUS_METHODS = new Set(["HEAD", "PATCH", "PUT", "DELETE", "OPTIONS"]);

/** POST /v1/uploads (API key) and the upload URLs it hands out (their own signature instead of a key). */
export function uploadRoutes(router: Router<AppState>, deps: AppDeps): void {
  const { uploads } = deps;
  router.post(UPLOADS_ROUTE, authenticate(deps.db, "subtitles:write", deps.now), ...jsonBody({ limit: "4kb", tooLargeIs413: true }), async (ctx) => {
    const request = uploadRequest.parse(ctx.request.body);
    const baseUrl = baseUrlOf(ctx, deps.publicBaseUrl);
    const upload = await createUpload({ db: deps.db, store: uploads.store, signer: deps.signer, baseUrl, now: deps.now() }, principalOf(ctx.state), request);
    ctx.state.log.info({ upload_id: upload.id, size_bytes: request.size_bytes }, "upload created");
    ctx.status = 201;
    ctx.set("Location", upload.upload_url);
    ctx.set("Cache-Control", "no-store");
    ctx.body = upload;
  });

  router.all(`${UPLOADS_ROUTE}/:id`, async (ctx, next) => {
    if (!TUS_METHODS.has(ctx.method)) return next();
    const id = ctx.params.id ?? "";
    // OPTIONS is tus discovery: what the server supports, for no upload in particular.
    if (ctx.method === "OPTIONS") return uploads.tus(ctx, undefined);
    if (!UPLOAD_ID.test(id)) throw notFound("upload");
    const expires = typeof ctx.query.expires === "string" ? ctx.query.expires : undefined;
    const signature = typeof ctx.query.signature === "string" ? ctx.query.signature : undefined;
    const verdict = deps.signer.check(uploadSigningKey(id), expires, signature, deps.now());
    if (verdict === "invalid") throw notFound("upload");
    const upload = await findUpload(deps.db, id);
    if (!upload) throw notFound("upload");
    if (verdict === "expired" && upload.completed_at === null) throw uploadExpired(id);
    if (upload.deleted_at !== null) throw uploadExpired(id);
    // A finished upload answers HEAD (a client resuming learns it is done) past the URL's hour; nothing else.
    if (verdict === "expired" && ctx.method !== "HEAD") throw uploadExpired(id);
    ctx.state.log = ctx.state.log.child({ upload_id: id, account_id: upload.account_id });
    await uploads.tus(ctx, upload);
  });
}
