import type { ErrorBody } from "@caption/shared/api/error";
import type { CancelResponse, Job } from "@caption/shared/api/job";
import type { SubmissionRequest, SubmissionResponse } from "@caption/shared/api/submission";
import type { Upload, UploadRequest } from "@caption/shared/api/upload";
import type { Usage } from "@caption/shared/api/usage";

/** An error answer of the API, or a job that ended failed: its code and message, as the API put them. */
export class CaptionApiError extends Error {
  readonly code: string;
  readonly status: number | undefined;
  constructor(code: string, message: string, status?: number) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/**
 * A refusal answered with `status` and `body`: the API's error body (ErrorBody) keeps its code and message;
 * anything else (a proxy's page) is HTTP_<status> with `otherwise` as its message.
 */
export function refusal(status: number, body: string, otherwise: string): CaptionApiError {
  const error = (parseJson(body) as Partial<ErrorBody> | undefined)?.error;
  if (typeof error?.code === "string") return new CaptionApiError(error.code, String(error.message ?? ""), status);
  return new CaptionApiError(`HTTP_${status}`, otherwise, status);
}

export interface CaptionApi {
  readonly baseUrl: string;
  readonly key: string;
  createUpload(sizeBytes: number, filename: string): Promise<Upload>;
  submit(body: SubmissionRequest, idempotencyKey: string): Promise<SubmissionResponse>;
  job(id: string): Promise<Job>;
  cancel(id: string): Promise<CancelResponse>;
  usage(): Promise<Usage>;
}

/** The few endpoints the caption command uses, over fetch, every error answer thrown as a CaptionApiError. */
export function captionApi(baseUrl: string, key: string): CaptionApi {
  const root = baseUrl.replace(/\/+$/, "");
  const call = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(`${root}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new CaptionApiError("SERVICE_UNREACHABLE", `${method} ${root}${path} failed (${cause}): is the service running at ${root}?`);
    }
    const text = await response.text();
    if (!response.ok) throw refusal(response.status, text, `${method} ${path} answered ${response.status}: ${text.slice(0, 200)}`);
    return parseJson(text) as T;
  };
  return {
    baseUrl: root,
    key,
    createUpload: (sizeBytes, filename) => call("POST", "/v1/uploads", { size_bytes: sizeBytes, filename } satisfies UploadRequest),
    submit: (body, idempotencyKey) => call("POST", "/v1/subtitles", body, { "idempotency-key": idempotencyKey }),
    job: (id) => call("GET", `/v1/jobs/${encodeURIComponent(id)}`),
    cancel: (id) => call("POST", `/v1/jobs/${encodeURIComponent(id)}/cancel`),
    usage: () => call("GET", "/v1/usage"),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
