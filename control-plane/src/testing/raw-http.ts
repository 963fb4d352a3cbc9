import { request as httpRequest } from "node:http";
import { connect } from "node:net";

// Requests as a hostile client writes them, which fetch will not send: any path bytes (percent-escapes
// that decode to no UTF-8, NUL), latin-1 header values, any method; and, over a bare socket, bytes that
// are no HTTP at all.

export interface RawRequest {
  method: string;
  /** The request target as written on the request line: already percent-encoded, never re-encoded. */
  path: string;
  /** Values are written as latin-1 bytes (a lone surrogate's UTF-8 bytes, say, as "\xed\xa0\x80"). */
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text; an event stream's is not read (it may not end). */
  text: string;
}

/** One request on a connection of its own; rejects when no answer has begun within `timeoutMs`. */
export function rawRequest(baseUrl: string, request: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    // A body always goes with its length: Node's client sends a GET's body without one, which is no HTTP.
    const length = request.body === undefined ? {} : { "content-length": String(Buffer.byteLength(request.body)) };
    const headers = { ...length, ...request.headers };
    const req = httpRequest({ host: hostname, port: Number(port), method: request.method, path: request.path, headers, agent: false }, (res) => {
      clearTimeout(timer);
      const answer = { status: res.statusCode ?? 0, headers: res.headers };
      if (String(res.headers["content-type"]).startsWith("text/event-stream")) {
        res.destroy();
        resolve({ ...answer, text: "" });
        return;
      }
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ ...answer, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(request.body);
  });
}

/** Bytes written as they are on a fresh connection, and what comes back until the server closes it. */
export function rawBytes(baseUrl: string, bytes: Buffer | string, timeoutMs = 10_000): Promise<{ statusLine: string; head: string; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      const head = end < 0 ? text : text.slice(0, end);
      resolve({ statusLine: head.split("\r\n")[0] ?? "", head, body: end < 0 ? "" : text.slice(end + 4) });
    });
    socket.end(bytes);
  });
}

/** The body as JSON, or undefined when it is none. */
export function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
