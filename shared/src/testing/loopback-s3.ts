import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import { multipartParts } from "./loopback-s3-parts.ts";

/** s3rver's built-in account. */
const ACCESS_KEY_ID = "S3RVER";
const SECRET_ACCESS_KEY = "S3RVER";

export interface LoopbackS3 {
  endpoint: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The standard AWS variables that point an SDK client (and the service's env) at this server. */
  env: { AWS_ENDPOINT_URL_S3: string; AWS_REGION: string; AWS_ACCESS_KEY_ID: string; AWS_SECRET_ACCESS_KEY: string };
  /** `METHOD /path?query` of every request that reached the server, in order. */
  requests: string[];
  /** While true, every write (PUT, POST, DELETE) is refused 503 SlowDown, as an S3 under pressure answers. */
  refuseWrites: boolean;
  close(): Promise<void>;
}

/**
 * A real S3-protocol server on loopback (s3rver, files in a temp dir) behind a gate that S3 itself
 * would be: anonymous requests are refused, and presigned URLs are checked against an independent
 * SigV4 implementation (s3rver accepts any V4 signature and anonymous reads, which would let a broken
 * presigned URL pass).
 */
export async function startLoopbackS3(bucket = "captions"): Promise<LoopbackS3> {
  const directory = await mkdtemp(path.join(tmpdir(), "s3rver-"));
  const s3rver = new S3rver({ directory, silent: true, configureBuckets: [{ name: bucket }] });
  await s3rver.configureBuckets();
  const handle = s3rver.callback();
  const requests: string[] = [];
  const gate = { refuseWrites: false };
  const parts = multipartParts();
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (gate.refuseWrites && req.method !== "GET" && req.method !== "HEAD") {
      req.resume();
      res.writeHead(503, { "content-type": "application/xml" });
      res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`);
      return;
    }
    const refusal = refuse(req);
    if (refusal) return sendError(res, refusal.code, refusal.message);
    if (parts(req, res)) return;
    handle(req, res);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    get refuseWrites() {
      return gate.refuseWrites;
    },
    set refuseWrites(value: boolean) {
      gate.refuseWrites = value;
    },
    endpoint,
    bucket,
    credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
    env: { AWS_ENDPOINT_URL_S3: endpoint, AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY },
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      s3rver.logger.exceptions.unhandle();
      s3rver.logger.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function refuse(req: IncomingMessage): { code: string; message: string } | undefined {
  const [rawPath = "/", rawQuery = ""] = (req.url ?? "/").split("?", 2);
  const query = new URLSearchParams(rawQuery);
  if (query.has("X-Amz-Signature")) return checkPresigned(req, rawPath, query);
  if (!req.headers.authorization) return { code: "AccessDenied", message: "Anonymous access is forbidden" };
  return undefined;
}

/** SigV4 query-string authentication, as in the AWS documentation (S3 presigned URLs sign UNSIGNED-PAYLOAD). */
function checkPresigned(req: IncomingMessage, rawPath: string, query: URLSearchParams): { code: string; message: string } | undefined {
  const [accessKeyId, day, region, service, terminator] = (query.get("X-Amz-Credential") ?? "").split("/");
  const amzDate = query.get("X-Amz-Date") ?? "";
  const expires = Number(query.get("X-Amz-Expires"));
  const signedHeaders = query.get("X-Amz-SignedHeaders") ?? "";
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (query.get("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256" || accessKeyId !== ACCESS_KEY_ID || !match || terminator !== "aws4_request" || !Number.isInteger(expires)) {
    return { code: "AuthorizationQueryParametersError", message: "malformed presigned URL" };
  }
  const signedAt = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), Number(match[4]), Number(match[5]), Number(match[6]));
  if (Date.now() > signedAt + expires * 1000) return { code: "AccessDenied", message: "Request has expired" };
  const encode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = [...query.entries()]
    .filter(([name]) => name !== "X-Amz-Signature")
    .map(([name, value]) => `${encode(name)}=${encode(value)}`)
    .sort()
    .join("&");
  const canonicalHeaders = signedHeaders
    .split(";")
    .map((name) => `${name}:${String(req.headers[name] ?? "").trim().replace(/\s+/g, " ")}\n`)
    .join("");
  const canonicalRequest = [req.method, rawPath, canonicalQuery, canonicalHeaders, signedHeaders, "UNSIGNED-PAYLOAD"].join("\n");
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, createHash("sha256").update(canonicalRequest).digest("hex")].join("\n");
  const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
  let key = hmac(`AWS4${SECRET_ACCESS_KEY}`, day ?? "");
  for (const part of [region ?? "", service ?? "", "aws4_request"]) key = hmac(key, part);
  const expected = Buffer.from(hmac(key, stringToSign).toString("hex"));
  const given = Buffer.from(query.get("X-Amz-Signature") ?? "");
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { code: "SignatureDoesNotMatch", message: "The request signature we calculated does not match the signature you provided" };
  return undefined;
}

function sendError(res: ServerResponse, code: string, message: string): void {
  res.writeHead(403, { "content-type": "application/xml" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}
