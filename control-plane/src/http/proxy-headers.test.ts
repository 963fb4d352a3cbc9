import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApi, type TestApi } from "../testing/test-api.ts";

const VIDEO = "https://videos.example.com/clip.mp4";
const FORWARDED = { "x-forwarded-host": "attacker.example", "x-forwarded-proto": "https" };

async function statusUrl(t: TestApi): Promise<string> {
  const { api_key: key } = await t.createKey();
  const { status, body } = await t.request("POST", "/v1/subtitles", { key, body: { video_url: VIDEO }, headers: FORWARDED });
  assert.equal(status, 202, JSON.stringify(body));
  return body.status_url;
}

describe("without TRUST_PROXY (the default)", () => {
  let t: TestApi;
  before(async () => {
    t = await startTestApi();
  });
  after(() => t.close());

  test("X-Forwarded-Host and -Proto are ignored: a client cannot choose the host of status_url", async () => {
    const url = await statusUrl(t);
    assert.ok(url.startsWith(`${t.url}/v1/jobs/`), url);
  });

  test("every response says nosniff, and /metrics is not on the API port", async () => {
    const health = await t.request("GET", "/healthz");
    assert.equal(health.headers.get("x-content-type-options"), "nosniff");
    const metrics = await t.request("GET", "/metrics");
    assert.equal(metrics.status, 404);
    assert.equal(metrics.headers.get("x-content-type-options"), "nosniff");
  });
});

describe("with TRUST_PROXY=true, behind a proxy that sets them", () => {
  let t: TestApi;
  before(async () => {
    t = await startTestApi({ TRUST_PROXY: "true" });
  });
  after(() => t.close());

  test("the forwarded host and protocol make status_url", async () => {
    const url = await statusUrl(t);
    assert.match(url, /^https:\/\/attacker\.example\/v1\/jobs\/job_/);
  });
});
