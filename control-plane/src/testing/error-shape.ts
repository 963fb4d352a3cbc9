import assert from "node:assert/strict";

/** The interface's error body `{error:{code,message,request_id}}` with this code. */
export function assertErrorShape(body: any, code: string): void {
  assert.equal(body.error.code, code, JSON.stringify(body));
  assert.equal(typeof body.error.message, "string");
  assert.match(body.error.request_id, /^req_/);
}
