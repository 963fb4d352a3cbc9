import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";

// Requests Node's HTTP parser refuses before Koa sees them: headers over 16 KiB (a 10 000-character path
// among them), a NUL or a line break in a header, a request line that is no HTTP. Node's own answer is a
// bare status line; this one carries the error body every other 4xx has.

const REFUSALS: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: "Request Header Fields Too Large", message: "the request line and headers are over 16 KiB" },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: "Request Timeout", message: "the request did not arrive in time" },
};
const MALFORMED = { status: 400, reason: "Bad Request", message: "malformed HTTP request" };
/** How long what follows a refused request (the rest of its body) is read and dropped before the connection is cut. */
const LINGER_MS = 2000;

/** The server's `clientError` listener: the refusal in the error shape, then the connection closed. */
export function answerClientError(logger: Logger): (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex & { bytesWritten?: number }) => void {
  const answered = new WeakSet<Duplex>();
  return (error, socket) => {
    // The parser refuses every later piece of an answered connection too: those are the bytes being dropped.
    if (answered.has(socket)) return;
    // As Node decides for its own answer: only where nothing of another response was written yet.
    if (error.code === "ECONNRESET" || !socket.writable || (socket.bytesWritten ?? 0) > 0) {
      socket.destroy();
      return;
    }
    const { status, reason, message } = REFUSALS[error.code ?? ""] ?? MALFORMED;
    const requestId = `req_${randomUUID()}`;
    logger.info({ request_id: requestId, status, code: error.code }, "request refused by the HTTP parser");
    const body = JSON.stringify({ error: { code: "INVALID_REQUEST", message, request_id: requestId } });
    // The answer to a HEAD has no body. The method is known only when the refused bytes begin the request
    // (they do unless the client wrote its request line and headers in separate pieces).
    const head = error.rawPacket?.subarray(0, 5).toString("latin1") === "HEAD ";
    answered.add(socket);
    // A lingering close: the client's remaining bytes are read (and dropped) while it reads the answer; cutting
    // the connection with them unread would reset it, and the client would see the reset instead of the answer.
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${head ? "" : body}`,
    );
  };
}
