import type { IncomingMessage } from "node:http";
import { Server, type ServerOptions } from "@tus/server";
import type { Context } from "koa";
import type { Logger } from "pino";
import { NodeRequest } from "srvx/node";
import { MAX_VIDEO_BYTES } from "@caption/shared/api/upload";
import type { ApiErrorCode } from "@caption/shared/errors/codes";
import type { Db } from "@caption/shared/db/database";
import type { UploadRow } from "@caption/shared/db/tables";
import { markUploadCompleted, markUploadDeleted } from "../db/upload-repository.ts";
import { UPLOADS_ROUTE } from "../services/upload-service.ts";
import type { UploadStore } from "../storage/upload-store.ts";
import type { AppState } from "./app-state.ts";

// Seconds a client waits before retrying after storage (disk, S3) or a lock refused its bytes.
const RETRY_AFTER_SECONDS = "5";
const CODE_OF_TUS_STATUS: Partial<Record<number, ApiErrorCode>> = {
  403: "UNSUPPORTED_MEDIA_TYPE",
  404: "NOT_FOUND",
  409: "UPLOAD_OFFSET_CONFLICT",
  410: "UPLOAD_EXPIRED",
  413: "PAYLOAD_TOO_LARGE",
};

export interface TusBridgeDeps {
  db: Db;
  store: UploadStore;
  locker: ServerOptions["locker"];
  logger: Logger;
  now: () => Date;
}

/** Hands one request of an upload URL to tus once its signature and row have been checked. */
export type TusBridge = (ctx: Context & { state: AppState }, upload: UploadRow | undefined) => Promise<void>;

/**
 * The tus 1.0 server (core, creation, termination, expiration) on the service's upload store. Koa checks
 * the URL's signature first; tus then owns offsets, locking and streaming to storage. Its answers keep
 * their status and tus headers; errors get the API's error body, and 5xx (storage refusing bytes, a lock
 * not granted in time) a Retry-After. A plain PUT of the whole file is a PATCH at offset 0.
 */
export function createTusBridge(deps: TusBridgeDeps): TusBridge {
  const requestLogs = new WeakMap<IncomingMessage, Logger>();
  const uploadIdOf = (storageId: string) => storageId.slice(storageId.lastIndexOf("/") + 1);
  const tus = new Server({
    path: UPLOADS_ROUTE,
    datastore: deps.store.datastore,
    locker: deps.locker,
    maxSize: MAX_VIDEO_BYTES,
    // Bytes a job may still read are not the client's to delete.
    disableTerminationForFinishedUploads: true,
    getFileIdFromRequest: (req) => {
      const last = new URL(req.url).pathname.split("/").pop() ?? "";
      return last === "" ? undefined : deps.store.storageId(last);
    },
    onUploadFinish: async (_req, upload) => {
      await markUploadCompleted(deps.db, uploadIdOf(upload.id), deps.now());
      return {};
    },
    onResponseError: (req, error) => {
      const node = (req as { runtime?: { node?: { req: IncomingMessage } } }).runtime?.node?.req;
      const log = (node && requestLogs.get(node)) ?? deps.logger;
      if (error instanceof Error || error.status_code >= 500) log.warn({ err: error }, "upload request refused");
      return undefined;
    },
  });

  return async (ctx, upload) => {
    if (ctx.method === "PUT") asTusPatch(ctx.req);
    requestLogs.set(ctx.req, ctx.state.log);
    const response = await tus.handleWeb(new NodeRequest({ req: ctx.req, res: ctx.res }));
    for (const [name, value] of response.headers) {
      if (name !== "content-length" && name !== "content-type") ctx.set(name, value);
    }
    if (upload && upload.completed_at === null && response.status < 400 && ctx.method !== "OPTIONS") {
      ctx.set("Upload-Expires", new Date(upload.expires_at).toUTCString());
    }
    ctx.status = response.status;
    if (response.status < 400) {
      ctx.body = response.status === 204 ? null : await response.text();
      if (ctx.method === "DELETE" && upload) await markUploadDeleted(deps.db, upload.id, deps.now());
      return;
    }
    const message = (await response.text()).trim() || "upload request refused";
    let code = CODE_OF_TUS_STATUS[response.status] ?? "INVALID_REQUEST";
    if (response.status >= 500) {
      code = "SERVICE_UNAVAILABLE";
      ctx.status = 503;
      ctx.set("Retry-After", RETRY_AFTER_SECONDS);
    }
    ctx.body = { error: { code, message: response.status >= 500 ? "storage did not take the bytes; resume from the offset a HEAD request reports" : message, request_id: ctx.state.requestId } };
  };
}

/** `PUT` of the whole file: the tus PATCH at offset 0 it amounts to (tus refuses it when bytes are already in). */
function asTusPatch(req: IncomingMessage): void {
  const replaced = new Set(["content-type", "tus-resumable", "upload-offset"]);
  const raw: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] ?? "";
    if (!replaced.has(name.toLowerCase())) raw.push(name, req.rawHeaders[i + 1] ?? "");
  }
  const added = { "content-type": "application/offset+octet-stream", "tus-resumable": "1.0.0", "upload-offset": "0" };
  for (const [name, value] of Object.entries(added)) {
    raw.push(name, value);
    req.headers[name] = value;
  }
  req.rawHeaders = raw;
  req.method = "PATCH";
}
