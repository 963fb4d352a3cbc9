import path from "node:path";
import { Type } from "@sinclair/typebox";
import { QualityReportSchema } from "@caption/shared/api/quality-report";
import { TranscriptSchema } from "@caption/shared/api/transcript";
import { resultContentType, SERVED_FILES } from "@caption/shared/storage/result-files";
import send from "send";
import { contentDisposition } from "../../storage/download-headers.ts";
import { EXPIRES_PATTERN, SIGNATURE_PATTERN } from "../../storage/signed-url.ts";
import { notFound, ServiceError } from "../../services/service-error.ts";
import { error, ref } from "../openapi-parts.ts";
import { resultFileParams } from "../path-params.ts";
import { defineRoute } from "../route-spec.ts";

const linkInvalid = () => new ServiceError("LINK_EXPIRED_OR_INVALID", "this download link is invalid or has expired; fetch the job again for fresh links");

/** The media types result files are served with (SERVED_FILES), each with its schema. */
function resultFileContent(): Record<string, { schema: object }> {
  const schemaOf = (mediaType: string) =>
    mediaType === "application/json"
      ? { oneOf: [ref(TranscriptSchema), ref(QualityReportSchema)] }
      : /^(video|image)\//.test(mediaType)
        ? { type: "string", contentMediaType: mediaType }
        : { type: "string" };
  return Object.fromEntries(SERVED_FILES.map(({ contentType }) => {
    const mediaType = contentType.split(";")[0]!;
    return [mediaType, { schema: schemaOf(mediaType) }];
  }));
}

/** Result downloads from local storage at capability URLs: no API key, signature and expiry checked, Range supported. */
export const fileRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/files/{job}/{file}",
    doc: {
      operationId: "downloadResultFile",
      tags: ["Files"],
      summary: "Download a result file through its signed link",
      description:
        "The links in a completed Job (video.url, poster_url, preview_strip_url and overlay_urls, subtitles.srt_url, vtt_url, ass_url, transcript_url and quality_url) point here; they need no API key and expire with the files. Supports Range requests.",
    },
    auth: "none",
    params: resultFileParams,
    query: {
      schema: Type.Object({
        expires: Type.String({ pattern: EXPIRES_PATTERN, description: "Unix time the link stops working" }),
        signature: Type.String({ pattern: SIGNATURE_PATTERN, description: "HMAC of the file and expiry" }),
      }),
      refuse: linkInvalid,
    },
    responses: {
      "200": { description: "The file", content: resultFileContent() },
      "206": { description: "The requested byte range", content: { "application/octet-stream": { schema: { type: "string" } } } },
      "403": error("LINK_EXPIRED_OR_INVALID"),
      "404": error("NOT_FOUND: the file no longer exists"),
      "416": error("RANGE_NOT_SATISFIABLE"),
    },
    // With object storage the links are presigned URLs of the store: no route here.
    enabled: (deps) => Boolean(deps.localFilesRoot),
    async handle(ctx, { deps, query }) {
      const root = deps.localFilesRoot!;
      const { job = "", file: name = "" } = ctx.params;
      const key = `${job}/${name}`;
      const { expires, signature } = query;
      if (!deps.signer.verify(key, expires, signature, deps.now())) throw linkInvalid();
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
    },
  }),
];
