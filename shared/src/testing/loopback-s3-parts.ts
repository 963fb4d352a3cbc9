import type { IncomingMessage, ServerResponse } from "node:http";

// s3rver stores multipart parts and completes uploads but answers neither ListParts nor
// AbortMultipartUpload, which resumable writers (the tus S3 store) rely on. The gate in front of it
// keeps the list of each upload's parts as S3 would report it and answers those two itself.

interface Part {
  number: number;
  etag: string;
  size: number;
  at: string;
}

const XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/";
const escapeXml = (value: string) => value.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Returns true when it answered the request itself; otherwise watches it on its way to s3rver. */
export function multipartParts(): (req: IncomingMessage, res: ServerResponse) => boolean {
  const uploads = new Map<string, Map<number, Part>>();
  return (req, res) => {
    const url = new URL(req.url ?? "/", "http://s3.local");
    const uploadId = url.searchParams.get("uploadId");
    if (uploadId === null) return false;
    const [, bucket = "", ...keyParts] = url.pathname.split("/");
    const key = decodeURIComponent(keyParts.join("/"));
    if (req.method === "PUT" && url.searchParams.has("partNumber")) {
      const number = Number(url.searchParams.get("partNumber"));
      const size = Number(req.headers["content-length"] ?? 0);
      res.on("finish", () => {
        const etag = res.getHeader("etag");
        if (res.statusCode !== 200 || typeof etag !== "string") return;
        const parts = uploads.get(uploadId) ?? new Map<number, Part>();
        parts.set(number, { number, etag, size, at: new Date().toISOString() });
        uploads.set(uploadId, parts);
      });
      return false;
    }
    if (req.method === "GET") {
      const parts = [...(uploads.get(uploadId)?.values() ?? [])].sort((a, b) => a.number - b.number);
      const body = parts
        .map((p) => `<Part><PartNumber>${p.number}</PartNumber><LastModified>${p.at}</LastModified><ETag>${escapeXml(p.etag)}</ETag><Size>${p.size}</Size></Part>`)
        .join("");
      res.writeHead(200, { "content-type": "application/xml" });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?>\n<ListPartsResult xmlns="${XMLNS}"><Bucket>${escapeXml(bucket)}</Bucket><Key>${escapeXml(key)}</Key>` +
          `<UploadId>${escapeXml(uploadId)}</UploadId><MaxParts>1000</MaxParts><IsTruncated>false</IsTruncated>${body}</ListPartsResult>`,
      );
      return true;
    }
    if (req.method === "DELETE") {
      uploads.delete(uploadId);
      req.resume();
      res.writeHead(204).end();
      return true;
    }
    if (req.method === "POST") res.on("finish", () => res.statusCode === 200 && uploads.delete(uploadId));
    return false;
  };
}
