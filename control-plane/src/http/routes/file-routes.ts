import path from "node:path";
import type Router from "@koa/router";
import send from "send";
import type { AppState } from "../app-state.ts";
import { resultContentType } from "@caption/shared/storage/result-files";
import { contentDisposition } from "../../storage/download-headers.ts";
import type { UrlSigner } from "../../storage/signed-url.ts";
import { notFound, ServiceError } from "../../services/service-error.ts";

const SEGMENT = /^[A-Za-z0-9_.-]{1,128}$/;

/** Result downloads from local storage at capability URLs: no API key, signature and expiry checked, Range supported. */
export function fileRoutes(router: Router<AppState>, root: string, signer: UrlSigner, now: () => Date): void {
  router.get("/v1/files/:job/:name", async (ctx) => {
    const { job = "", name = "" } = ctx.params;
    if (!SEGMENT.test(job) || !SEGMENT.test(name) || name.startsWith(".")) throw notFound("file");
    const key = `${job}/${name}`;
    const expires = typeof ctx.query.expires === "string" ? ctx.query.expires : undefined;
    const signature = typeof ctx.query.signature === "string" ? ctx.query.signature : undefined;
    if (!signer.verify(key, expires, signature, now())) throw new ServiceError("LINK_EXPIRED_OR_INVALID", "this download link is invalid or has expired; fetch the job again for fresh links");
    // Koa starts every response at 404; send only sets the status for ranges and errors.
    ctx.status = 200;
    await new Promise<void>((resolve, reject) => {
      const stream = send(ctx.req, key, { root: path.resolve(root), dotfiles: "deny", index: false, maxAge: 0 });
      stream.on("error", (error: { status?: number }) => reject(error.status === 404 ? notFound("file") : error));
      stream.on("headers", (res) => {
        // From here on send owns the response; before it, errors still go through our error body.
        ctx.respond = false;
        res.setHeader("Cache-Control", "private, no-transform");
        const disposition = contentDisposition(name);
        if (disposition) res.setHeader("Content-Disposition", disposition);
        // The type the file was stored with (text/vtt, text/x-ssa… with their charset), not a guess from its extension.
        const type = resultContentType(name);
        if (type) res.setHeader("Content-Type", type);
      });
      ctx.res.once("close", resolve);
      stream.pipe(ctx.res);
    });
  });
}
