import type { ErrorBody } from "./types.ts";

/** The API's root, relative to the page (…/studio/ → …/): a proxy's path prefix is kept. */
const apiRoot = () => new URL("../", document.baseURI);
export const apiUrl = (path: string): string => new URL(path, apiRoot()).href;

/** An answer of the API that is not a success: its status, and its error body's code and message as it wrote them. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** Seconds the API asked to wait (Retry-After), when it did. */
  readonly retryAfter: number | null;
  constructor(status: number, code: string, message: string, retryAfter: number | null = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

/** The error an unsuccessful response carries, read from its body (or from its status when it has none). */
export async function errorOf(response: Response): Promise<ApiError> {
  const retry = Number(response.headers.get("retry-after"));
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : null;
  try {
    const body = (await response.json()) as Partial<ErrorBody>;
    if (body.error && typeof body.error.message === "string") return new ApiError(response.status, body.error.code, body.error.message, retryAfter);
  } catch {
    // Not the API's JSON: a proxy's page, say. The status is all there is.
  }
  return new ApiError(response.status, `HTTP_${response.status}`, `the service answered ${response.status} ${response.statusText}`.trim(), retryAfter);
}

/** A problem as the person reads it: the API's message, and its code in parentheses. */
export function plainWords(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  if (error instanceof DOMException && error.name === "AbortError") return "stopped";
  if (error instanceof TypeError) return "the service could not be reached; is it running?";
  return error instanceof Error ? error.message : String(error);
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A request to the API with the person's key; the answer or an ApiError. */
export async function send(method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(apiUrl(path), {
    method,
    headers,
    body: options.body === undefined ? null : JSON.stringify(options.body),
    signal: options.signal ?? null,
    cache: "no-store",
    credentials: "omit",
  });
  if (!response.ok) throw await errorOf(response);
  return response;
}

export const getJson = async <T,>(path: string, options: CallOptions = {}): Promise<T> => (await send("GET", path, options)).json() as Promise<T>;
export const postJson = async <T,>(path: string, options: CallOptions = {}): Promise<T> => (await send("POST", path, options)).json() as Promise<T>;

/** Waits `ms`, or rejects when the signal aborts first. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

/** A result file behind its signed link (no key: the link is the permission). */
export async function fetchResult<T>(url: string): Promise<T> {
  const response = await fetch(url, { cache: "no-store", credentials: "omit" });
  if (!response.ok) throw await errorOf(response);
  return response.json() as Promise<T>;
}
