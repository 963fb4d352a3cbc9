import assert from "node:assert/strict";
import { Value } from "@sinclair/typebox/value";
import { ErrorBodySchema } from "@caption/shared/api/error";
import { API_ERROR_CODES } from "@caption/shared/errors/codes";

/** The interface's error body `{error:{code,message,request_id}}` with this code. */
export function assertErrorShape(body: any, code: string): void {
  assert.equal(body.error.code, code, JSON.stringify(body));
  assert.equal(typeof body.error.message, "string");
  assert.match(body.error.request_id, /^req_/);
}

/** Whether a body is the interface's error body, whatever its code (one of the catalog's): nothing more, nothing less. */
export function isErrorShape(body: unknown): boolean {
  return Value.Check(ErrorBodySchema, body) && (API_ERROR_CODES as readonly string[]).includes(body.error.code) && body.error.message !== "" && body.error.request_id !== "";
}
