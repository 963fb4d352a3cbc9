/** The one error type the HTTP layer turns into `{error:{code,message,request_id}}`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

export const notFound = (what = "resource") => new ApiError(404, "NOT_FOUND", `${what} not found`);
export const invalidRequest = (message: string) => new ApiError(400, "INVALID_REQUEST", message);
/** The database (or another dependency) is not there right now; the client should retry. */
export const serviceUnavailable = () => new ApiError(503, "SERVICE_UNAVAILABLE", "the service is temporarily unavailable", { "Retry-After": "5" });
