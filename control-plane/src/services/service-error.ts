import type { Scope } from "@caption/shared/api/scopes";
import type { ApiErrorCode } from "@caption/shared/errors/codes";

export interface ServiceErrorDetails {
  /** When the client may try again: a limit's window ends, an outage passes. */
  retryAfterSeconds?: number;
  /** The scope the API key lacks (INSUFFICIENT_SCOPE). */
  requiredScope?: Scope;
}

/**
 * Why a request cannot be served, as a code of the API's catalog and a message for the client.
 * Services throw it knowing nothing of HTTP; the HTTP layer maps each code to a status.
 */
export class ServiceError extends Error {
  readonly code: ApiErrorCode;
  readonly details: ServiceErrorDetails;
  constructor(code: ApiErrorCode, message: string, details: ServiceErrorDetails = {}) {
    super(message);
    this.name = "ServiceError";
    this.code = code;
    this.details = details;
  }
}

export const notFound = (what: string) => new ServiceError("NOT_FOUND", `${what} not found`);
export const invalidRequest = (message: string) => new ServiceError("INVALID_REQUEST", message);
/** The database (or another dependency) is not there right now; the client should retry. */
export const serviceUnavailable = () => new ServiceError("SERVICE_UNAVAILABLE", "the service is temporarily unavailable", { retryAfterSeconds: 5 });
