import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { open, rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { MAX_VIDEO_BYTES } from "@caption/shared/api/upload";
import { JobFailure } from "@caption/shared/errors/codes";
import { pinnedHttpsRequest } from "@caption/shared/net/pinned-https";
import type { Logger } from "pino";
import { parseVideoUrl, resolveTarget, type ResolvedTarget } from "./resolve-target.ts";
import { throughputGuard } from "./throughput-guard.ts";

export const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
// Bounds how long any download holds a worker, however the server paces it (DOWNLOAD_TIMEOUT_SECONDS).
export const DEFAULT_TOTAL_TIMEOUT_MS = 180_000;
// A server trickling bytes just often enough to dodge the idle timeout is cut off after one window
// below this rate (DOWNLOAD_MIN_BYTES_PER_SECOND, DOWNLOAD_THROUGHPUT_WINDOW_SECONDS).
export const DEFAULT_MIN_BYTES_PER_SECOND = 64 * 1024;
export const DEFAULT_THROUGHPUT_WINDOW_MS = 20_000;

export interface DownloadOptions {
  signal: AbortSignal;
  /** Tests only: lets the download reach loopback and private addresses. */
  allowPrivateAddresses: boolean;
  maxBytes?: number;
  /** DNS, TCP, TLS and response headers together. */
  connectTimeoutMs?: number;
  /** Longest silence while the body streams. */
  idleTimeoutMs?: number;
  /** Everything, from the DNS lookup to the last byte. */
  totalTimeoutMs?: number;
  /** The body must average at least this over every `throughputWindowMs` (0: no minimum). */
  minBytesPerSecond?: number;
  throughputWindowMs?: number;
  logger?: Logger;
  /** Tests only: trusted CA certificates replacing the default ones. */
  ca?: string | Buffer;
}

export interface DownloadResult {
  bytes: number;
  /** Of the bytes written, hex: tells a retry whether it got the same file. */
  sha256: string;
  contentType: string | null;
}

const TLS_ERROR_CODE = /^(ERR_TLS|ERR_SSL|ERR_OSSL|CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|HOSTNAME_MISMATCH)/;

function unreachable(message: string, cause?: unknown): JobFailure {
  return new JobFailure("VIDEO_UNREACHABLE", message, cause === undefined ? undefined : { cause });
}

function describeNetworkError(error: unknown, host: string): JobFailure {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? "";
  const message = error instanceof Error ? error.message : String(error);
  if (TLS_ERROR_CODE.test(code)) return unreachable(`TLS connection to ${host} failed: ${message}`, error);
  switch (code) {
    case "ECONNREFUSED":
      return unreachable(`${host} refused the connection`, error);
    case "ECONNRESET":
    case "ERR_STREAM_PREMATURE_CLOSE":
      return unreachable(`The connection to ${host} closed before the video was fully received`, error);
    case "EHOSTUNREACH":
    case "ENETUNREACH":
    case "ETIMEDOUT":
      return unreachable(`${host} is unreachable (${code})`, error);
    default:
      return unreachable(`Downloading from ${host} failed: ${message}`, error);
  }
}

function sendRequest(target: ResolvedTarget, signal: AbortSignal, ca: string | Buffer | undefined): Promise<IncomingMessage> {
  return pinnedHttpsRequest(target, { method: "GET", signal, ca, headers: { accept: "*/*", "accept-encoding": "identity", "user-agent": "caption-service-ingest" } });
}

function checkHeaders(response: IncomingMessage, host: string, maxBytes: number): void {
  const status = response.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    const location = response.headers.location;
    throw new JobFailure("REDIRECT_NOT_ALLOWED", `${host} answered ${status} redirect${location ? ` to ${location}` : ""}; redirects are not followed`);
  }
  if (status < 200 || status >= 300) throw unreachable(`${host} answered HTTP ${status}`);
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new JobFailure("VIDEO_TOO_LARGE", `The video is ${declared} bytes; the limit is ${maxBytes} bytes`);
  }
}

/**
 * Downloads an HTTPS video to `destPath` under the ingest rules: no redirects, SSRF-checked and
 * pinned address, size cap, timeouts and a minimum throughput, hashing what it writes. Failures the
 * user can fix are JobFailures; the partial file is removed on any failure. Abort rejects with the
 * signal's reason.
 */
export async function downloadVideo(url: string, destPath: string, opts: DownloadOptions): Promise<DownloadResult> {
  const maxBytes = opts.maxBytes ?? MAX_VIDEO_BYTES;
  const idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const parsed = parseVideoUrl(url);
  const host = parsed.host;
  // Timeouts and limits abort the request with the JobFailure that explains them.
  const failure = new AbortController();
  const fail = (reason: JobFailure) => failure.abort(reason);
  const signal = AbortSignal.any([opts.signal, failure.signal]);
  const connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const connectTimer = setTimeout(() => fail(unreachable(`${host} did not respond within ${connectTimeoutMs} ms`)), connectTimeoutMs);
  const totalTimeoutMs = opts.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS;
  const totalTimer = setTimeout(() => fail(unreachable(`Downloading from ${host} took longer than ${totalTimeoutMs} ms`)), totalTimeoutMs);
  let idleTimer: NodeJS.Timeout | undefined;
  let throughputTimer: NodeJS.Timeout | undefined;
  const armIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => fail(unreachable(`${host} sent no data for ${idleTimeoutMs} ms`)), idleTimeoutMs);
  };

  let file: FileHandle | undefined;
  // Disk errors are ours, not the video's: they must not become VIDEO_UNREACHABLE.
  let localError: unknown;
  try {
    const target = await resolveTarget(parsed, { signal, allowPrivateAddresses: opts.allowPrivateAddresses });
    opts.logger?.debug({ host, address: target.address }, "downloading video");
    // Opened first so nothing is awaited between the response and reading it (an unread body's errors would go unheard).
    file = await open(destPath, "w").catch((error: unknown) => {
      localError = error;
      throw error;
    });
    const response = await sendRequest(target, signal, opts.ca);
    clearTimeout(connectTimer);
    try {
      checkHeaders(response, host, maxBytes);
    } catch (error) {
      response.destroy();
      throw error;
    }

    let bytes = 0;
    const hash = createHash("sha256");
    const windowMs = opts.throughputWindowMs ?? DEFAULT_THROUGHPUT_WINDOW_MS;
    const throughput = throughputGuard({ minBytesPerSecond: opts.minBytesPerSecond ?? DEFAULT_MIN_BYTES_PER_SECOND, windowMs });
    const checkThroughput = () => {
      const slow = throughput.check();
      if (slow) fail(unreachable(`${host} ${slow}`));
    };
    throughputTimer = setInterval(checkThroughput, Math.max(100, windowMs / 4));
    armIdle();
    for await (const chunk of response as AsyncIterable<Buffer>) {
      armIdle();
      throughput.record(chunk.length);
      checkThroughput();
      hash.update(chunk);
      bytes += chunk.length;
      if (bytes > maxBytes) throw new JobFailure("VIDEO_TOO_LARGE", `The video is larger than the limit of ${maxBytes} bytes`);
      try {
        await file.write(chunk);
      } catch (error) {
        localError = error;
        throw error;
      }
    }
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && bytes !== declared) {
      throw unreachable(`${host} sent ${bytes} of ${declared} bytes`);
    }
    await file.close();
    file = undefined;
    const contentType = response.headers["content-type"] ?? null;
    const sha256 = hash.digest("hex");
    opts.logger?.info({ host, bytes, sha256, content_type: contentType }, "video downloaded");
    return { bytes, sha256, contentType };
  } catch (error) {
    const reason: unknown = opts.signal.aborted
      ? opts.signal.reason
      : failure.signal.aborted
        ? failure.signal.reason
        : error instanceof JobFailure || localError !== undefined
          ? error
          : describeNetworkError(error, host);
    clearTimeout(idleTimer);
    clearTimeout(totalTimer);
    clearInterval(throughputTimer);
    await file?.close().catch(() => undefined);
    file = undefined;
    await rm(destPath, { force: true });
    throw reason;
  } finally {
    clearTimeout(connectTimer);
    clearTimeout(totalTimer);
    clearTimeout(idleTimer);
    clearInterval(throughputTimer);
    await file?.close().catch(() => undefined);
  }
}
