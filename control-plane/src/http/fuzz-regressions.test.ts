import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testId } from "@caption/shared/testing/ids";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { jsonOf, rawBytes, rawRequest } from "../testing/raw-http.ts";

// Every request the API fuzz (api-fuzz.test.ts) once failed on, as it was found (shrunk by fast-check),
// kept as a test of its own: the fuzz's generators may change, these requests stay answered.
// "seed 392026 on 29753fa": the fuzz's default seed run against main before issue #39's changes.

let t: TestApi;
let key: string;
before(async () => {
  t = await startTestApi();
  ({ api_key: key } = await t.createKey());
});
after(() => t.close());

describe("a NUL for an id was a 500 from PostgreSQL (issue #39; seed 392026 on 29753fa): 404 NOT_FOUND", () => {
  const routes: [string, string, string][] = [
    ["GET", "/v1/jobs/%00", "job not found"],
    ["GET", "/v1/jobs/%00/events", "job not found"],
    ["POST", "/v1/jobs/%00/cancel", "job not found"],
    ["POST", "/v1/jobs/%00/renders", "job not found"],
    ["DELETE", "/v1/webhook_endpoints/%00", "webhook endpoint not found"],
    ["GET", "/v1/webhook_endpoints/%00/deliveries", "webhook endpoint not found"],
    ["POST", "/v1/webhook_endpoints/%00/enable", "webhook endpoint not found"],
  ];
  for (const [method, path, message] of routes) {
    test(`${method} ${path}`, async () => {
      const res = await t.request(method, path, { key, ...(path.endsWith("/renders") ? { body: {} } : {}) });
      assert.equal(res.status, 404, JSON.stringify(res.body));
      assertErrorShape(res.body, "NOT_FOUND");
      assert.equal(res.body.error.message, message, "the answer of an unknown id");
    });
  }
});

test("PROPFIND, a method no route has, was a 500 (the router's 501; seed 392026 on 29753fa): 405 with Allow", async () => {
  const res = await t.request("PROPFIND", `/v1/uploads/${"x".repeat(256)}`, { key });
  assert.equal(res.status, 405, JSON.stringify(res.body));
  assertErrorShape(res.body, "METHOD_NOT_ALLOWED");
  assert.equal(res.headers.get("allow"), "HEAD, PATCH, PUT, DELETE, OPTIONS");
  const own = await t.request("PROPFIND", `/v1/jobs/${testId("job")}`, { key });
  assert.equal(own.headers.get("allow"), "HEAD, GET");
});

describe("what Node's HTTP parser refused was a bare status line (seed 392026 on 29753fa): now the error shape", () => {
  // The headers of these two are the shrunk counterexamples' own: just over the 16 KiB Node allows.
  test("GET /v1/jobs/ with an X-Request-Id of 16 227 characters: 431", async () => {
    const headers = { authorization: `Bearer ${key}`, "x-request-id": "x".repeat(16_227), "last-event-id": "99999999999999999999" };
    const res = await rawRequest(t.url, { method: "GET", path: "/v1/jobs/", headers });
    assert.equal(res.status, 431);
    assertErrorShape(jsonOf(res.text), "INVALID_REQUEST");
  });

  test("GET /v1/presets with a body but no length (Node's client sends a GET's so): 400", async () => {
    const body = `[${"0,".repeat(2000)}0]`;
    const res = await rawBytes(t.url, `GET /v1/presets HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/offset+octet-stream\r\n\r\n${body}`);
    assert.match(res.statusLine, /^HTTP\/1.1 400 /);
    assertErrorShape(jsonOf(res.body), "INVALID_REQUEST");
  });

  test("PUT of 100 001 bytes with an Authorization of 16 079 characters was reset before its answer: 431", async () => {
    const res = await rawRequest(t.url, {
      method: "PUT",
      path: "/v1/uploads/?expires=1796180117&signature=qjIawQeD4E80mAbES1-MPT6tjZzMnLzc00qYcs9fDqU",
      headers: {
        authorization: `Bearer ${"x".repeat(16_072)}`,
        "tus-resumable": "1.0.0",
        "upload-offset": "99999999999999999999",
        "upload-length": "\u00ef\u00bf\u00bd",
        range: "bytes=0-0",
        "x-request-id": "!  ",
        "last-event-id": "0",
        "content-type": "application/offset+octet-stream",
      },
      body: `[${"0,".repeat(99_998)}0]`,
    });
    assert.equal(res.status, 431);
    assertErrorShape(jsonOf(res.text), "INVALID_REQUEST");
  });

  test("HEAD with an Authorization over 16 KiB got a body after its 431, which no client can read (seed 392026, this branch): none", async () => {
    const res = await rawRequest(t.url, { method: "HEAD", path: `/v1/uploads/${testId("upl")}`, headers: { authorization: `Bearer ${"x".repeat(20_000)}` } });
    assert.equal(res.status, 431);
    assert.equal(res.text, "");
  });
});
