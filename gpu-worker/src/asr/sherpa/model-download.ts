import { createHash, type Hash } from "node:crypto";
import { open } from "node:fs/promises";

/** How long a download may wait for the server's answer (not for the whole body). */
const RESPONSE_TIMEOUT_MS = 15_000;
/** A body that sends nothing for this long is treated as a dropped connection (a NAT that forgot it sends no reset). */
const IDLE_TIMEOUT_MS = 60_000;
/** Connections a download may use: the first, then resumptions from where the last one broke off. */
const MAX_CONNECTIONS = 6;

export class ModelDownloadError extends Error {
  override name = "ModelDownloadError";
}

export interface DownloadOptions {
  sha256?: string | undefined;
  size?: number | undefined;
  /** Who pinned sha256/size, for the messages. */
  pinnedBy: string;
  label: string;
  signal: AbortSignal;
  report: (line: string) => void;
  /** For tests: how long a body may stay silent before the connection is given up and resumed. */
  idleTimeoutMs?: number;
}

/** What was received, hashed as it came. */
interface Progress {
  hash: Hash;
  received: number;
  reported: number;
}

class ConnectionLost extends Error {
  override name = "ConnectionLost";
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * Streams `url` into `destination`, hashing as it goes, and refuses a size or sha256 other than the
 * pinned one. A connection that drops (or goes silent) part-way is resumed with an HTTP Range request
 * from the byte where it broke off, guarded by If-Range with the first answer's validator; a server
 * that answers the range with the whole file is read again from the start.
 */
export async function downloadFile(url: string, destination: string, options: DownloadOptions): Promise<{ sha256: string; size: number }> {
  const { label, report } = options;
  const file = await open(destination, "w");
  const progress: Progress = { hash: createHash("sha256"), received: 0, reported: -1 };
  let expected: number | undefined;
  let validator: string | undefined;
  try {
    for (let connection = 1; ; connection++) {
      const resuming = progress.received > 0;
      const response = await request(url, options, resuming ? { from: progress.received, validator } : undefined);
      if (!resuming) {
        ({ expected, validator } = await firstAnswer(response, url, options));
        report(`${label}: downloading ${url}${expected ? ` (${megabytes(expected)})` : ""}`);
      } else if (response.status === 200) {
        report(`${label}: the server sent the whole file again; starting over`);
        Object.assign(progress, { hash: createHash("sha256"), received: 0, reported: -1 });
        await file.truncate(0);
      } else if (response.status !== 206 || rangeStart(response) !== progress.received) {
        await response.body?.cancel();
        throw new ModelDownloadError(`${label}: ${url} answered HTTP ${response.status} (${response.headers.get("content-range") ?? "no Content-Range"}) to a request to resume at byte ${progress.received}`);
      }
      try {
        await receive(response, file, progress, expected, options);
        break;
      } catch (error) {
        if (!(error instanceof ConnectionLost) || options.signal.aborted) throw error;
        if (connection >= MAX_CONNECTIONS) throw new ModelDownloadError(`${label}: ${url} broke off ${connection} times; the last time at ${megabytes(progress.received)} (${error.message})`);
        report(`${label}: connection lost at ${megabytes(progress.received)} (${error.message}); resuming (connection ${connection + 1} of ${MAX_CONNECTIONS})`);
      }
    }
  } finally {
    await file.close();
  }
  const actual = progress.hash.digest("hex");
  if (options.size !== undefined && progress.received !== options.size) {
    throw new ModelDownloadError(`${label}: got ${progress.received} bytes, ${options.pinnedBy} pins ${options.size}`);
  }
  if (options.sha256 !== undefined && actual !== options.sha256) {
    throw new ModelDownloadError(`${label}: sha256 ${actual} does not match the ${options.sha256} ${options.pinnedBy} pins; refused`);
  }
  report(`${label}: ${megabytes(progress.received)} received${options.sha256 ? ", sha256 verified" : ""}`);
  return { sha256: actual, size: progress.received };
}

async function request(url: string, options: DownloadOptions, resume?: { from: number; validator: string | undefined }): Promise<Response> {
  const { label, signal } = options;
  // A host that drops packets would otherwise hold `npm run setup` for minutes; the body may take its time.
  const answered = new AbortController();
  const noAnswer = setTimeout(() => answered.abort(new Error(`no answer within ${RESPONSE_TIMEOUT_MS / 1000} s`)), RESPONSE_TIMEOUT_MS);
  const headers: Record<string, string> = resume ? { range: `bytes=${resume.from}-`, ...(resume.validator ? { "if-range": resume.validator } : {}) } : {};
  try {
    return await fetch(url, { signal: AbortSignal.any([signal, answered.signal]), redirect: "follow", headers });
  } catch (error) {
    signal.throwIfAborted();
    const reason = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new ModelDownloadError(`${label}: ${url} is unreachable (${reason?.code ?? reason?.message ?? (error as Error).message})`, { cause: error });
  } finally {
    clearTimeout(noAnswer);
  }
}

/** Checks the first answer against the pins; its size and the validator resumptions must match. */
async function firstAnswer(
  response: Response,
  url: string,
  options: DownloadOptions,
): Promise<{ expected: number | undefined; validator: string | undefined }> {
  const { label } = options;
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new ModelDownloadError(`${label}: ${url} answered HTTP ${response.status}`);
  }
  const announced = Number(response.headers.get("content-length") ?? Number.NaN);
  if (options.size !== undefined && Number.isFinite(announced) && announced !== options.size) {
    await response.body.cancel();
    throw new ModelDownloadError(`${label}: ${url} announces ${announced} bytes, ${options.pinnedBy} pins ${options.size}`);
  }
  // A weak ETag may not be used with If-Range; Last-Modified is the fallback.
  const etag = response.headers.get("etag");
  const validator = etag && !etag.startsWith("W/") ? etag : (response.headers.get("last-modified") ?? undefined);
  return { expected: options.size ?? (Number.isFinite(announced) ? announced : undefined), validator };
}

function rangeStart(response: Response): number | undefined {
  const match = response.headers.get("content-range")?.match(/^bytes (\d+)-\d+\/(\d+|\*)$/);
  return match ? Number(match[1]) : undefined;
}

/** Appends the body to `file`; a broken or silent connection is ConnectionLost, with what arrived kept. */
async function receive(
  response: Response,
  file: Awaited<ReturnType<typeof open>>,
  progress: Progress,
  expected: number | undefined,
  options: DownloadOptions,
): Promise<void> {
  const { label, report, signal } = options;
  if (!response.body) throw new ConnectionLost("no body");
  const idle = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const reader = response.body.getReader();
  let silent: NodeJS.Timeout | undefined;
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      const next = await new Promise<Awaited<ReturnType<typeof reader.read>>>((resolve, reject) => {
        silent = setTimeout(() => reject(new ConnectionLost(`nothing for ${idle / 1000} s`)), idle);
        const lost = (error: Error) => new ConnectionLost(error.cause instanceof Error ? error.cause.message : error.message);
        reader.read().then(resolve, (error: unknown) => reject(signal.aborted ? signal.reason : lost(error as Error)));
      }).finally(() => clearTimeout(silent));
      signal.throwIfAborted();
      if (next.done) {
        if (expected !== undefined && progress.received < expected) throw new ConnectionLost("the server closed the connection early");
        return;
      }
      const chunk = next.value;
      progress.hash.update(chunk);
      // At the byte it belongs at: after starting over, the file was truncated but its offset was not.
      await file.write(chunk, 0, chunk.byteLength, progress.received);
      progress.received += chunk.byteLength;
      if (options.size !== undefined && progress.received > options.size) {
        throw new ModelDownloadError(`${label}: more than the ${options.size} bytes ${options.pinnedBy} pins`);
      }
      const step = expected ? Math.floor((progress.received / expected) * 20) : Math.floor(progress.received / (32 << 20));
      if (step > progress.reported) {
        progress.reported = step;
        report(`${label}: ${megabytes(progress.received)}${expected ? ` of ${megabytes(expected)} (${Math.floor((progress.received / expected) * 100)}%)` : ""}`);
      }
    }
  } catch (error) {
    void reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
