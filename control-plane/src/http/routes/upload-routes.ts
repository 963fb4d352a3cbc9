import type { RouterContext } from "@koa/router";
import { Type } from "@sinclair/typebox";
import { UploadRequestSchema, UploadSchema } from "@caption/shared/api/upload";
import { ErrorBodySchema } from "@caption/shared/api/error";
import { notFound } from "../../services/service-error.ts";
import { countUploadRequest } from "../../services/authentication.ts";
import { createUpload, uploadBusy, uploadExpired, uploadSigningKey, UPLOADS_ROUTE } from "../../services/upload-service.ts";
import { EXPIRES_PATTERN, SIGNATURE_PATTERN } from "../../storage/signed-url.ts";
import type { AppDeps } from "../app-deps.ts";
import type { AppState } from "../app-state.ts";
import { baseUrlOf } from "../base-url.ts";
import { principalOf } from "../middleware/authenticate.ts";
import { error, json, retryAfter } from "../openapi-parts.ts";
import { uploadIdParam } from "../path-params.ts";
import { defineRoute, type HttpMethod } from "../route-spec.ts";

const uploadId = { id: uploadIdParam };
const signedQuery = {
  schema: Type.Object({
    expires: Type.String({ pattern: EXPIRES_PATTERN, description: "Unix time the upload URL stops taking bytes" }),
    signature: Type.String({ pattern: SIGNATURE_PATTERN, description: "HMAC of the upload and expiry" }),
  }),
  refuse: () => notFound("upload"),
};
const tusHeaders = { "Tus-Resumable": "1.0.0 (tus requests; 412 without it)" };
const offsetHeaders = { "Upload-Offset": { schema: { type: "integer" }, description: "Bytes stored" }, "Tus-Resumable": { schema: { type: "string" }, description: "1.0.0" } };
const tusRefusals = {
  "404": error("Wrong or missing signature, unknown upload (NOT_FOUND)"),
  "410": error("The upload URL expired with the upload unfinished, or the upload was deleted (UPLOAD_EXPIRED); nothing is written"),
  "412": error("Tus-Resumable missing (INVALID_REQUEST)"),
  "429": {
    description: "The upload already has 2 requests in progress, or the requests per minute of the key that created it are used up (RATE_LIMITED); nothing is written",
    headers: retryAfter,
    ...json(ErrorBodySchema),
  },
  "503": { description: "Storage refused the bytes or the upload's lock was busy (SERVICE_UNAVAILABLE); the offset stays what storage holds", headers: retryAfter, ...json(ErrorBodySchema) },
};

/**
 * An upload URL's request: its signature checked (404 wrong), at most MAX_UPLOAD_REQUESTS_IN_FLIGHT of the
 * upload's in progress (429, after a remembered refusal's wait: it costs no database work), the request counted
 * against the rate of the key that created the upload (429), its row checked (404 unknown, 410 expired or
 * deleted), then tus.
 */
async function toTus(ctx: RouterContext<AppState>, deps: AppDeps, { expires, signature }: { expires: string; signature: string }): Promise<void> {
  const id = ctx.params.id ?? "";
  const verdict = deps.signer.check(uploadSigningKey(id), expires, signature, deps.now());
  if (verdict === "invalid") throw notFound("upload");
  const leave = deps.uploads.inFlight.enter(id);
  if (!leave) {
    await deps.rateRefusals.slowly();
    throw uploadBusy(id);
  }
  try {
    const upload = await countUploadRequest(deps.db, deps.rateRefusals, id, deps.now());
    if (!upload) throw notFound("upload");
    if (upload.deleted_at !== null) throw uploadExpired(id);
    // A finished upload answers HEAD (a client resuming learns it is done) past the URL's hour; nothing else.
    if (verdict === "expired" && (upload.completed_at === null || ctx.method !== "HEAD")) throw uploadExpired(id);
    ctx.state.log = ctx.state.log.child({ upload_id: id, account_id: upload.account_id });
    await deps.uploads.tus(ctx, upload);
  } finally {
    leave();
  }
}

const tusRoute = (method: HttpMethod, operationId: string, summary: string, description: string, responses: Record<string, object>) =>
  defineRoute({
    method,
    path: `${UPLOADS_ROUTE}/{id}`,
    doc: { operationId, tags: ["Uploads"], summary, description },
    auth: "none",
    params: uploadId,
    query: signedQuery,
    headers: method === "put" ? {} : tusHeaders,
    responses: { ...responses, ...tusRefusals },
    handle: (ctx, { deps, query }) => toTus(ctx, deps, query),
  });

/** POST /v1/uploads (API key) and the upload URLs it hands out (tus 1.0 or one PUT; their own signature instead of a key). */
export const uploadRoutes = [
  defineRoute({
    method: "post",
    path: UPLOADS_ROUTE,
    doc: {
      operationId: "createUpload",
      tags: ["Uploads"],
      summary: "Create an upload for a file on your own disk",
      description:
        "Answers with a signed tus 1.0 upload URL valid for one hour; once every byte is in, submit the id as upload_id. Needs a positive balance. " +
        "At most 10 unfinished uploads per account, and what the account keeps stays within its upload quota (count and bytes).",
    },
    auth: { scope: "subtitles:write", checkedBy: "middleware" },
    body: { schema: UploadRequestSchema, limit: "4kb", tooLargeIs413: true },
    responses: {
      "201": { description: "The upload and its URL", headers: { Location: { schema: { type: "string" }, description: "upload_url" } }, ...json(UploadSchema) },
      "400": error("Invalid request (INVALID_REQUEST)"),
      "402": error("No prepaid seconds available (INSUFFICIENT_CREDITS): stored bytes are paid service"),
      "413": error("size_bytes over 500 MiB or over the account's whole upload quota (VIDEO_TOO_LARGE), or a body over 4 KiB (PAYLOAD_TOO_LARGE)"),
      "429": {
        description: "RATE_LIMITED, or UPLOAD_LIMIT_EXCEEDED: 10 unfinished uploads already, or the upload quota's count or bytes would be passed (the figures in the message)",
        headers: retryAfter,
        ...json(ErrorBodySchema),
      },
      "503": { description: "SERVICE_UNAVAILABLE", headers: retryAfter, ...json(ErrorBodySchema) },
    },
    async handle(ctx, { deps, body: request }) {
      const baseUrl = baseUrlOf(ctx, deps.publicBaseUrl);
      const uploadDeps = { db: deps.db, store: deps.uploads.store, signer: deps.signer, baseUrl, quota: deps.uploads.quota, now: deps.now() };
      const upload = await createUpload(uploadDeps, principalOf(ctx.state), request);
      ctx.state.log.info({ upload_id: upload.id, size_bytes: request.size_bytes }, "upload created");
      ctx.status = 201;
      ctx.set("Location", upload.upload_url);
      ctx.set("Cache-Control", "no-store");
      ctx.body = upload;
    },
  }),
  tusRoute("head", "getUploadOffset", "tus: how many bytes are stored", "Upload-Offset is what storage holds: resume from it after a dropped connection. A finished upload answers even after its URL's hour.", {
    "200": { description: "Upload-Offset and Upload-Length", headers: { ...offsetHeaders, "Upload-Length": { schema: { type: "integer" }, description: "size_bytes" } } },
  }),
  tusRoute(
    "patch",
    "appendUploadBytes",
    "tus: append bytes at the stored offset",
    "Body: the bytes, as application/offset+octet-stream, with Upload-Offset the stored offset. Streamed to storage. Two clients at one offset: one wins, the other gets 409. The last byte finishes the upload: submit its id as upload_id.",
    {
      "204": { description: "Stored; Upload-Offset is the new offset", headers: offsetHeaders },
      "409": error("Upload-Offset is not the stored offset (UPLOAD_OFFSET_CONFLICT)"),
      "413": error("More bytes than size_bytes (PAYLOAD_TOO_LARGE); the upload stays unfinished"),
    },
  ),
  tusRoute("put", "putUploadBytes", "The whole file in one request (for curl)", "For clients without tus: curl -X PUT --data-binary @talk.mp4 '<upload_url>'. A tus PATCH at offset 0: refused once some bytes are in.", {
    "204": { description: "Stored", headers: offsetHeaders },
    "409": error("Some bytes are already in: resume with tus (UPLOAD_OFFSET_CONFLICT)"),
    "413": error("More bytes than size_bytes (PAYLOAD_TOO_LARGE)"),
  }),
  tusRoute("delete", "deleteUpload", "tus termination: delete an unfinished upload", "Deletes the bytes at once; the upload no longer counts against the account's 10 unfinished ones.", {
    "204": { description: "Deleted" },
    "400": error("The upload is finished (INVALID_REQUEST)"),
  }),
  defineRoute({
    method: "options",
    path: `${UPLOADS_ROUTE}/{id}`,
    doc: { operationId: "uploadCapabilities", tags: ["Uploads"], summary: "tus discovery: version, extensions, largest size", description: "Needs neither key nor signature." },
    auth: "none",
    params: uploadId,
    responses: {
      "204": {
        description: "What the tus server supports",
        headers: {
          "Tus-Version": { schema: { type: "string" }, description: "1.0.0" },
          "Tus-Extension": { schema: { type: "string" }, description: "creation, termination, expiration, …" },
          "Tus-Max-Size": { schema: { type: "integer" }, description: "524288000" },
        },
      },
    },
    handle: (ctx, { deps }) => deps.uploads.tus(ctx, undefined),
  }),
];

