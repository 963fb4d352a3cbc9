export interface ApiRequestOptions {
  key?: string;
  /** Sent as JSON with Content-Type application/json (unless a content-type header is given). */
  body?: unknown;
  /** Sent as is. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the text when the body is not JSON. */
  body: any;
}

/** One HTTP request to the API as a client would send it. */
export async function apiRequest(baseUrl: string, method: string, path: string, options: ApiRequestOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // non-JSON bodies are returned as text
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
