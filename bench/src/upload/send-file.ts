import { createReadStream } from "node:fs";
import { request } from "node:http";

export interface Sent {
  status: number;
  ms: number;
}

/** Streams `length` bytes of `file` from `start` as one request's body (the way curl --data-binary or a tus client sends it). */
export function sendFile(
  url: string,
  method: string,
  file: string,
  range: { start: number; length: number },
  headers: Record<string, string> = {},
): Promise<Sent> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, "content-length": String(range.length) } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on("error", reject);
    createReadStream(file, { start: range.start, end: range.start + range.length - 1, highWaterMark: 1024 * 1024 }).pipe(req);
  });
}
