import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, test } from "node:test";
import { insertCompletedJob } from "@caption/shared/testing/job-rows";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { testId } from "@caption/shared/testing/ids";

// Text no UTF-8 store can hold, and Host headers that are no host: the client's error (400 in the
// error shape), never a 500 or a stack trace.

let t: TestApi;
let key: string;
const SOURCE = testId("job");

before(async () => {
  t = await startTestApi();
  const created = await t.createKey({ concurrency: 100 });
  key = created.api_key;
  await insertCompletedJob(t.database.db, { id: SOURCE, accountId: created.account_id, expiresAt: new Date(Date.now() + 3600_000) });
});
after(() => t.close());

describe("a lone surrogate anywhere in a body is 400 INVALID_REQUEST naming where", () => {
  // Written out by hand: the JSON text holds the escape, as a hostile client sends it.
  const cases: [string, string, string, RegExp][] = [
    ["a render word", `/v1/jobs/${SOURCE}/renders`, `{"words":[{"text":"ok","start":0,"end":1},{"text":"a\\ud800","start":1,"end":2}]}`, /^words\[1\]\.text holds a lone surrogate/],
    ["a low surrogate alone", `/v1/jobs/${SOURCE}/renders`, `{"words":[{"text":"\\udc00x","start":0,"end":1}]}`, /^words\[0\]\.text holds a lone surrogate/],
    ["a submission's vocabulary", "/v1/subtitles", `{"video_url":"https://videos.example.com/a.mp4","vocabulary":["\\ud83d"]}`, /^vocabulary\[0\] holds a lone surrogate/],
    ["a preview's text", "/v1/previews", `{"text":"hi \\ud800 there"}`, /^text holds a lone surrogate/],
    ["a field name", `/v1/jobs/${SOURCE}/renders`, `{"\\ud800":1}`, /^a field name holds a lone surrogate/],
  ];
  for (const [name, path, rawBody, message] of cases) {
    test(name, async () => {
      const res = await t.request("POST", path, { key, rawBody, headers: { "content-type": "application/json" } });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assertErrorShape(res.body, "INVALID_REQUEST");
      assert.match(res.body.error.message, message);
    });
  }

  test("a well-formed pair (an emoji) is text like any other", async () => {
    const res = await t.request("POST", `/v1/jobs/${SOURCE}/renders`, { key, rawBody: `{"words":[{"text":"\\ud83d\\ude00","start":0,"end":1}]}`, headers: { "content-type": "application/json" } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
  });
});

/** A GET with a Host header of our choosing (fetch will not send one that is no host). */
function getWithHost(path: string, host: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: Number(port), path, setHost: false, headers: { Host: host, authorization: `Bearer ${key}` } }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("a Host that is no host[:port] is 400, not 500", () => {
  for (const host of ["a:99999", "a:-1", "[::1", "a b"]) {
    for (const path of ["/docs", "/v1/openapi.json", `/v1/jobs/${SOURCE}`]) {
      test(`Host: ${host} on ${path}`, async () => {
        const res = await getWithHost(path, host);
        assert.equal(res.status, 400, res.body);
        const body = JSON.parse(res.body);
        assertErrorShape(body, "INVALID_REQUEST");
        assert.match(body.error.message, /Host header/);
        assert.doesNotMatch(res.body, /at .*\.ts:\d+/, "no stack trace");
      });
    }
  }

  test("a good Host still works", async () => {
    const res = await getWithHost("/docs", "captions.example.com:8443");
    assert.equal(res.status, 200);
  });
});
